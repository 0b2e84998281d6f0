// Fuzz target: the two governance files a host reads from outside — a lock file
// (parse_skill_lock: JSON, versioned, digests and paths checked) and a skills configuration
// file (parse_governance_config: YAML or JSON under the agent-spec budgets).
//
// Input: an option byte, then the text.
//   bit 0: read it as a skills configuration (else as a lock file)
//   bit 1: with bit 0, small budgets (64 nodes, 256 text bytes, depth 4, 1,024 bytes)
//
// A lock file is checked against an oracle for its duplicate keys: nlohmann's DOM keeps one value
// per key, so the text repeats a key in some object exactly when its SAX events hold more keys
// than the DOM's objects. parse_skill_lock accepts no text that repeats a key, and refuses one
// as a duplicate only when it does.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <agentskills/base/errors.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/host/host.hpp>
#include <agentskills/lock/lock.hpp>

#include "fuzz_common.hpp"

using namespace agentskills;

namespace {

using nlohmann::json;

/// Counts the keys of the text's objects as the SAX parser reports them (every occurrence).
struct KeyCounter {
    std::size_t keys = 0;
    bool null() { return true; }
    bool boolean(bool /*unused*/) { return true; }
    bool number_integer(json::number_integer_t /*unused*/) { return true; }
    bool number_unsigned(json::number_unsigned_t /*unused*/) { return true; }
    bool number_float(json::number_float_t /*unused*/, const std::string& /*unused*/) { return true; }
    bool string(std::string& /*unused*/) { return true; }
    bool binary(json::binary_t& /*unused*/) { return true; }
    bool start_object(std::size_t /*unused*/) { return true; }
    bool end_object() { return true; }
    bool start_array(std::size_t /*unused*/) { return true; }
    bool end_array() { return true; }
    bool key(std::string& /*unused*/) {
        ++keys;
        return true;
    }
    template <class Exception>
    bool parse_error(std::size_t /*unused*/, const std::string& /*unused*/, const Exception& /*unused*/) {
        return false;
    }
};

/// The keys of the DOM's objects (each key of an object once), without recursion: a refused
/// text may nest deeper than the stack.
std::size_t dom_keys(const json& root) {
    std::size_t n = 0;
    std::vector<const json*> todo{&root};
    while (!todo.empty()) {
        const json* j = todo.back();
        todo.pop_back();
        if (j->is_object()) n += j->size();
        if (j->is_structured()) {
            for (const auto& child : *j) todo.push_back(&child);
        }
    }
    return n;
}

/// Whether the reader's message is its duplicate-key error ("lock file: [skill N: ]duplicate key
/// '...", not merely a message that quotes such text from a key).
bool is_duplicate_key_error(std::string_view message) {
    constexpr std::string_view prefix = "lock file: ";
    constexpr std::string_view skill = "skill ";
    constexpr std::string_view duplicate = "duplicate key '";
    if (message.substr(0, prefix.size()) != prefix) return false;
    message.remove_prefix(prefix.size());
    if (message.substr(0, skill.size()) == skill) {
        message.remove_prefix(skill.size());
        std::size_t digits = 0;
        while (digits < message.size() && message[digits] >= '0' && message[digits] <= '9') ++digits;
        if (digits == 0 || message.substr(digits, 2) != ": ") return false;
        message.remove_prefix(digits + 2);
    }
    return message.substr(0, duplicate.size()) == duplicate;
}

/// Whether some object of the text repeats a key; nullopt when it is not JSON.
std::optional<bool> repeats_a_key(std::string_view text) {
    KeyCounter counter;
    if (!json::sax_parse(text, &counter)) return std::nullopt;
    return counter.keys != dom_keys(json::parse(text));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Input in(data, size);
    const std::uint8_t flags = in.byte();
    const std::string_view text = in.rest();
    if ((flags & 1) != 0) {
        AgentSpecLimits limits;
        if ((flags & 2) != 0) limits = {.max_bytes = 1024, .max_nodes = 64, .max_text_bytes = 256, .max_depth = 4};
        try {
            const GovernanceConfig config = parse_governance_config(text, limits);
            for (const auto& rule : config.overrides) FUZZ_CHECK(rule.name.empty() != rule.path.empty());
        } catch (const ConfigurationError& e) {
            FUZZ_CHECK(is_valid_utf8(e.what()));
        }
        return 0;
    }
    try {
        const SkillLock lock = parse_skill_lock(text);
        // Accepted: no key repeated, and it writes back and reads again to the same lock.
        FUZZ_CHECK(repeats_a_key(text) == std::optional<bool>(false));
        const std::string again = to_lock_text(lock);
        FUZZ_CHECK(is_valid_utf8(again));
        FUZZ_CHECK(to_lock_text(parse_skill_lock(again)) == again);
    } catch (const ConfigurationError& e) {
        FUZZ_CHECK(is_valid_utf8(e.what()));
        // Refused as a duplicate only when a key is repeated (or when the text is not JSON
        // further on: the reader stops at the first duplicate).
        if (is_duplicate_key_error(e.what())) {
            FUZZ_CHECK(repeats_a_key(text) != std::optional<bool>(false));
        }
    }
    return 0;
}
