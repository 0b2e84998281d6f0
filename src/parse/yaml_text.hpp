// agentskills-cpp (private) — the text of a yaml-cpp scalar as valid UTF-8.
#pragma once

#include <string>

#include "agentskills/base/names.hpp"

namespace agentskills::detail {

// yaml-cpp 0.7 decodes the double-quoted escapes \N (U+0085) and \_ (U+00A0) to the single
// Latin-1 bytes 0x85 and 0xA0, not to their UTF-8 forms, so a scalar of a valid UTF-8 document
// can hold a stray byte. Reading such bytes as Latin-1 gives the characters the escapes mean.
[[nodiscard]] inline std::string yaml_scalar_text(const std::string& value) {
    return is_valid_utf8(value) ? value : valid_utf8(value, InvalidByte::latin1);
}

}  // namespace agentskills::detail
