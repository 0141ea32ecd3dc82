#pragma once
// What planning needs to know about locations, local or remote: whether a
// sibling exists, and the text of a (small) index file.
#include <string>

namespace modelcat::crawl {

class Locator {
public:
    virtual ~Locator() = default;
    virtual bool exists(const std::string& location) const = 0;
    virtual std::string read_text(const std::string& location) const = 0;  // throws on failure
};

class LocalLocator final : public Locator {
public:
    bool exists(const std::string& location) const override;
    std::string read_text(const std::string& location) const override;
};

// The folder of a path or URL, and "dir/name" beside it.
std::string parent(const std::string& location);
std::string sibling(const std::string& location, const std::string& name);

}  // namespace modelcat::crawl
