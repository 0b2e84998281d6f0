// agentskills-cpp — private: Claude Code plugins and marketplaces as roots (docs/loading.md,
// "Claude Code plugins and marketplaces"). A configured root whose `.claude-plugin/` holds
// `marketplace.json` or `plugin.json` stands for the `skills/` folders of its plugins (or the
// skill paths they declare); each such folder becomes a Root whose skills are named
// `plugin:skill` by the nested walk's renaming.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common.hpp"

namespace agentskills::detail {

/// The roots the configured root `root` (resolved, in the reader's namespace) stands for when it
/// is a Claude Code marketplace or plugin: a plugin's `skills/` folder when it exists, or the
/// folders its `skills` field declares (a skill directory's parent with Root::only naming it),
/// with Root::name_prefix `plugin:` and Root::origin `root`. nullopt when it is neither (an ordinary
/// library). A manifest that cannot be read or used, a remote or escaping plugin source, a
/// plugin name that breaks the name rules: a `plugin-refused` diagnostic naming the file and
/// the reason, and that plugin (or, for a broken manifest, the whole root) contributes nothing.
[[nodiscard]] std::optional<std::vector<Root>> plugin_roots(const std::string& root, const Storage& storage,
                                                            Diagnostics& diagnostics);

}  // namespace agentskills::detail
