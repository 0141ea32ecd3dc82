#include "catalog/named_statement.hpp"

#include <stdexcept>

namespace modelcat::catalog {

int NamedStatement::index(Param p) {
    const size_t n = indexes_.size();
    for (size_t k = 0; k < n; ++k) {
        const size_t i = (next_ + k) % n;
        if (indexes_[i].first == p.name) {
            next_ = i + 1;
            return indexes_[i].second;
        }
    }
    const int index = st_.getIndex(p.name);
    if (index == 0) throw std::logic_error(std::string("no parameter ") + p.name + " in " + st_.getQuery());
    indexes_.emplace_back(p.name, index);
    next_ = 0;
    return index;
}

void NamedStatement::exec() {
    st_.exec();
    reset();
}

// Clearing the bindings drops the pointers to strings bound without a copy.
void NamedStatement::reset() {
    st_.reset();
    st_.clearBindings();
}

}  // namespace modelcat::catalog
