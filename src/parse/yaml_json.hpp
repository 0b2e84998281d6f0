// agentskills-cpp (private) — the one walk from the YAML front end's tree (yaml.hpp) to JSON.
//
// Three readers turn a tree into nlohmann::json: the parser (SkillManifest::frontmatter, every
// scalar as its text), the core-schema typing (core_json.cpp: the MCP server and client,
// `list --json`) and the agent-spec reader (host/spec.cpp). They walk the tree the same way —
// an alias's copy in place, a collection the read stopped inside reported as incomplete, a
// mapping's keys and values in order — and differ only in what a scalar becomes and what a key
// may be. Those differences are a Rules type; the walk is this one template.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "yaml.hpp"

namespace agentskills::detail {

// What a Rules type provides (each a const member function; "refuse" means throw the reader's
// own exception, in the reader's own words; a Rules that needs the YamlTree holds it):
//
//   json scalar(const YNode& n)                     a scalar or null node's value
//   void unresolved_alias(const YNode& n)           an alias of an incomplete anchor: refuse,
//                                                   or return (it is then read as its null)
//   bool alias_value(const YNode& n, json& out)     an alias's value when the rules give it
//                                                   otherwise than by walking the copy (true)
//   bool key(const YNode& k, bool copy, std::string& text)
//                                                   the text of a mapping key, or refuse;
//                                                   false: the key is incomplete
//   bool missing_value(const YNode& mapping, const std::string& key)
//                                                   a last key without a value: true ignores
//                                                   it, false reports the mapping incomplete,
//                                                   or refuse
//   void duplicate_key(const YNode& value, const std::string& key)
//                                                   a key seen before in the mapping: refuse,
//                                                   or return (the later value wins)
//   static constexpr bool checks_duplicates         false: duplicate_key is never called (the
//                                                   later value wins without a lookup)

/// The JSON of `n` into `out` under `rules`; false when `n` is a collection the read stopped
/// inside (YNode::unclosed: its items are converted, it never reached its parent). `copy`: the
/// walk is inside an alias's copy.
template <class Rules>
bool yaml_tree_json(const YNode& n, nlohmann::json& out, const Rules& rules, bool copy = false) {
    if (n.has(YNode::alias) && !copy) {
        if (n.has(YNode::unresolved)) rules.unresolved_alias(n);
        if (rules.alias_value(n, out)) return true;
        return yaml_tree_json(n, out, rules, true);
    }
    switch (n.kind) {
        case YNode::Kind::null:
        case YNode::Kind::scalar:
            out = rules.scalar(n);
            return true;
        case YNode::Kind::sequence:
            out = nlohmann::json::array();
            for (const YNode& item : n.items) {
                nlohmann::json value;
                if (!yaml_tree_json(item, value, rules, copy)) return false;
                out.push_back(std::move(value));
            }
            return !n.has(YNode::unclosed);
        case YNode::Kind::mapping:
            out = nlohmann::json::object();
            for (std::size_t i = 0; i < n.items.size(); i += 2) {
                std::string key;
                if (!rules.key(n.items[i], copy, key)) return false;
                if (i + 1 == n.items.size()) {
                    if (!rules.missing_value(n, key)) return false;
                    break;
                }
                const YNode& item = n.items[i + 1];
                nlohmann::json value;
                if (!yaml_tree_json(item, value, rules, copy)) return false;
                if constexpr (Rules::checks_duplicates) {
                    if (out.contains(key)) rules.duplicate_key(item, key);
                }
                out[std::move(key)] = std::move(value);
            }
            return !n.has(YNode::unclosed);
    }
    return true;
}

}  // namespace agentskills::detail
