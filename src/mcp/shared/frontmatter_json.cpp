// agentskills-cpp MCP server — SKILL.md frontmatter as JSON under the YAML 1.2 core schema.
//
// The typing is the library's one (parse/core_json.cpp, shared with ParseOptions::frontmatter_typing
// and `list --json`); here the SKILL.md is split as the SDK's client splits it, and the tree is
// also checked against the subset of YAML the SDK's reader reads (sdk_subset.cpp).
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "../../parse/core_json.hpp"
#include "../../parse/yaml.hpp"
#include "internal.hpp"

namespace agentskills::mcp::detail {
namespace {

using nlohmann::json;

json tree_json(std::string_view yaml, std::size_t max_depth, std::size_t max_nodes, bool fast_path,
               std::optional<std::string>* outside_sdk = nullptr) {
    agentskills::detail::YamlTree tree = agentskills::detail::read_yaml_tree(
        yaml, agentskills::detail::core_json_options(max_depth, max_nodes, fast_path));
    json value = agentskills::detail::core_json(tree, max_depth, max_nodes);
    if (outside_sdk != nullptr) *outside_sdk = outside_sdk_subset(tree, yaml);
    if (tree.root) agentskills::detail::recycle_yaml_tree(std::move(*tree.root));  // room for the next skill's
    return value;
}

/// The frontmatter between the opening and closing `---` lines, split as the SDK client splits
/// it: CRLF read as LF, a leading BOM skipped. Only the frontmatter is copied (the body of a
/// large SKILL.md is never touched).
std::string frontmatter_text(std::string_view skill_md) {
    std::string_view v = skill_md;
    if (v.substr(0, 3) == "\xEF\xBB\xBF") v.remove_prefix(3);
    std::size_t pos = 0;
    if (v.substr(0, 4) == "---\n") {
        pos = 4;
    } else if (v.substr(0, 5) == "---\r\n") {
        pos = 5;
    } else {
        throw std::runtime_error("SKILL.md does not begin with a \"---\" line");
    }
    const std::size_t start = pos;
    while (pos <= v.size()) {
        std::size_t end = v.find('\n', pos);
        const bool has_newline = end != std::string_view::npos;
        if (!has_newline) end = v.size();
        std::string_view line = v.substr(pos, end - pos);
        if (has_newline && !line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.substr(0, 3) == "---" && line.find_first_not_of(" \t", 3) == std::string_view::npos) {
            const std::string_view yaml = v.substr(start, pos - start);
            std::string text;
            text.reserve(yaml.size());
            for (std::size_t i = 0; i < yaml.size(); ++i) {
                if (yaml[i] == '\r' && i + 1 < yaml.size() && yaml[i + 1] == '\n') continue;
                text.push_back(yaml[i]);
            }
            return text;
        }
        if (!has_newline) break;
        pos = end + 1;
    }
    throw std::runtime_error("the frontmatter has no closing \"---\" line");
}

}  // namespace

std::optional<json> simple_frontmatter_json(std::string_view yaml) {
    return agentskills::detail::simple_core_json(yaml);
}

json yaml_frontmatter_json(std::string_view yaml, std::size_t max_depth, std::size_t max_nodes) {
    return tree_json(yaml, max_depth, max_nodes, false);
}

json frontmatter_json(std::string_view skill_md, std::size_t max_depth, std::size_t max_nodes) {
    // Most frontmatter has the common shape, which the front end reads without yaml-cpp (ten
    // times cheaper); a test checks that both paths give the same value.
    return tree_json(frontmatter_text(skill_md), max_depth, max_nodes, true);
}

json frontmatter_json(std::string_view skill_md, std::size_t max_depth, std::size_t max_nodes,
                      std::optional<std::string>& outside_sdk) {
    return tree_json(frontmatter_text(skill_md), max_depth, max_nodes, true, &outside_sdk);
}

}  // namespace agentskills::mcp::detail
