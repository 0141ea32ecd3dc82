#include "file_out.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace modelcat::kit {

void write_file(const std::filesystem::path& path, std::span<const uint8_t> head, uint64_t total_size, DataMode mode) {
    if (total_size < head.size()) throw std::invalid_argument("write_file: total size below header size");
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(head.data()), static_cast<std::streamsize>(head.size()));
        if (mode == DataMode::zeros) {
            const std::vector<char> zeros(1 << 20, 0);
            for (uint64_t left = total_size - head.size(); left > 0 && out;) {
                const uint64_t n = std::min<uint64_t>(left, zeros.size());
                out.write(zeros.data(), static_cast<std::streamsize>(n));
                left -= n;
            }
        }
        if (!out.flush()) throw std::runtime_error("write_file: cannot write " + path.string());
    }
    // resize_file truncates upwards, which leaves a hole rather than allocating blocks.
    if (mode == DataMode::sparse) std::filesystem::resize_file(path, total_size);
}

}  // namespace modelcat::kit
