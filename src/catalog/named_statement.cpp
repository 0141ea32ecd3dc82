#include "catalog/named_statement.hpp"

#include <stdexcept>

namespace modelcat::catalog {

int ParamIndex::add(Param p, int index) {
    if (index == 0) throw std::logic_error(std::string("no parameter ") + p.name);
    indexes_.emplace_back(p.name, index);
    next_ = 0;
    return index;
}

void exec_and_clear(SQLite::Statement& st) {
    st.exec();
    st.reset();
    st.clearBindings();
}

int NamedStatement::index(Param p) {
    return indexes_.find(p, [this](const char* name) { return st_.getIndex(name); });
}

void NamedStatement::reset() {
    st_.reset();
    st_.clearBindings();
}

}  // namespace modelcat::catalog
