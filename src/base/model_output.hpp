// agentskills-cpp — private: the last step of every text the model sees (text.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace agentskills::detail {

/// `text` as model text (text.hpp), and with U+FFFE and U+FFFF as U+FFFD, so that it is
/// well-formed XML 1.0 character data and holds no NUL ("finished" text). Clean text costs one
/// scan and one copy.
[[nodiscard]] std::string finished_model_text(std::string_view text);

/// True when finished_model_text would return `text` unchanged.
[[nodiscard]] bool is_finished_model_text(std::string_view text) noexcept;

/// Appends the finished text of `text`, XML-escaped (`&`, `<`, `>`, `"`, `'`), to `out` in one
/// pass: the same bytes as `xml_escape(finished_model_text(text))`. A text built only of such
/// pieces and of ASCII pieces without controls is finished as a whole, which is what lets the
/// renderers skip a last pass over the whole block: no CR is left to merge with a following LF,
/// and a piece that is valid UTF-8 stays so next to ASCII.
void append_finished_xml(std::string& out, std::string_view text);

/// A position from `pos` on such that every byte of `text` in between is printable ASCII, TAB
/// or LF: the scan stops at the first byte that is not (a control, DEL, a byte from 0x80 on),
/// or a few bytes before the end. Clean stretches go 16 bytes (SSE2) or 8 bytes a step; a
/// caller looks at the bytes from the result on itself.
[[nodiscard]] std::size_t skip_plain_text(std::string_view text, std::size_t pos) noexcept;

}  // namespace agentskills::detail
