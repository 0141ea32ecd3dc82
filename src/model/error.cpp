#include "model/error.hpp"

namespace modelcat::model {

std::string Failure::reason() const { return json_path.empty() ? message : "at " + json_path + ": " + message; }

std::string Failure::describe() const {
    return location + (offset ? ": offset " + std::to_string(*offset) : std::string()) + ": " + reason();
}

}  // namespace modelcat::model
