#pragma once
// An I/O failure (not a format problem): missing file, permission, network.
#include <stdexcept>

namespace modelcat::io {

class IoError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace modelcat::io
