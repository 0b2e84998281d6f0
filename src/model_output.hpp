// agentskills-cpp — private: the last step of every text the model sees (prompt.cpp).
#pragma once

#include <string>

namespace agentskills::detail {

/// `text` as model text (text.hpp), and with U+FFFE and U+FFFF as U+FFFD, so that it is
/// well-formed XML 1.0 character data and holds no NUL. Clean text costs one scan, no copy.
[[nodiscard]] std::string finish_model_text(std::string text);

}  // namespace agentskills::detail
