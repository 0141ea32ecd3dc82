#pragma once
// What planning needs to know about locations, local or remote: whether a
// sibling exists, and the text of a (small) index file.
#include <string>

namespace modelcat::locate {

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

// Whether an input or location is remote: http://, https://, hf:// or ollama://.
bool is_remote(const std::string& location);

// The folder of a path or URL, and "dir/name" beside it (`name` alone beside a bare file name):
// the one sibling lookup, for split sets, checkpoints and their config.json.
std::string parent(const std::string& location);
std::string sibling(const std::string& location, const std::string& name);

}  // namespace modelcat::locate
