// The plain decoders of the table types (dequant_groups.hpp): the grid quants and
// the nibble-table types over plain loops.
#include "dequant/dequant_groups.hpp"

namespace modelcat::dequant::dequant_blocks {

void q4_0(const uint8_t* b, size_t n, float* y) { q4_0_with<PlainGroups>(b, n, y); }
void iq4_nl(const uint8_t* b, size_t n, float* y) { iq4_nl_with<PlainGroups>(b, n, y); }
void iq4_xs(const uint8_t* b, size_t n, float* y) { iq4_xs_with<PlainGroups>(b, n, y); }
void mxfp4(const uint8_t* b, size_t n, float* y) { mxfp4_with<PlainGroups>(b, n, y); }
void nvfp4(const uint8_t* b, size_t n, float* y) { nvfp4_with<PlainGroups>(b, n, y); }
void iq2_xxs(const uint8_t* b, size_t n, float* y) { iq2_xxs_with<PlainGroups>(b, n, y); }
void iq2_xs(const uint8_t* b, size_t n, float* y) { iq2_xs_with<PlainGroups>(b, n, y); }
void iq2_s(const uint8_t* b, size_t n, float* y) { iq2_s_with<PlainGroups>(b, n, y); }
void iq3_xxs(const uint8_t* b, size_t n, float* y) { iq3_xxs_with<PlainGroups>(b, n, y); }
void iq3_s(const uint8_t* b, size_t n, float* y) { iq3_s_with<PlainGroups>(b, n, y); }
void iq1_s(const uint8_t* b, size_t n, float* y) { iq1_s_with<PlainGroups>(b, n, y); }
void iq1_m(const uint8_t* b, size_t n, float* y) { iq1_m_with<PlainGroups>(b, n, y); }

}  // namespace modelcat::dequant::dequant_blocks
