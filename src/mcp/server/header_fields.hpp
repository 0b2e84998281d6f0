// agentskills-cpp MCP server — what the Streamable HTTP transport's header check reads from a
// request body (internal; the fuzz target compares it with a full parse).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace agentskills::mcp::detail {

/// The `_meta` key of the protocol version a 2026-07-28 message claims.
constexpr std::string_view PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";

/// What the header check reads from a message body: the fields it compares, taken in one pass of
/// the same parser as json::parse (and, like it, the last of a key given twice counts), without
/// building the tree that the handler builds from the same body afterwards.
class HeaderFields final : public nlohmann::json_sax<nlohmann::json> {
public:
    bool object = false;                   ///< the message is a JSON object
    bool has_id = false;                   ///< it has an "id"
    std::optional<std::string> method;     ///< "method", when a string
    std::optional<std::string> version;    ///< params._meta's protocol version, when a string
    std::optional<std::string> name, uri;  ///< params.name and params.uri, when strings

    /// Reads `body`; false (and nothing read) when it is not JSON.
    bool read(std::string_view body) {
        if (nlohmann::json::sax_parse(body, this, nlohmann::json::input_format_t::json, /*strict=*/true)) return true;
        *this = HeaderFields();
        return false;
    }

    bool null() override { return value(nullptr); }
    bool boolean(bool /*unused*/) override { return value(nullptr); }
    bool number_integer(number_integer_t /*unused*/) override { return value(nullptr); }
    bool number_unsigned(number_unsigned_t /*unused*/) override { return value(nullptr); }
    bool number_float(number_float_t /*unused*/, const string_t& /*unused*/) override { return value(nullptr); }
    bool string(string_t& text) override { return value(&text); }
    bool binary(binary_t& /*unused*/) override { return value(nullptr); }
    bool start_object(std::size_t /*unused*/) override {
        Where where = Where::other;
        if (stack_.empty()) {
            where = Where::top;
            object = true;
        } else if (key_ == Key::params) {
            where = Where::params;
            version.reset();
            name.reset();
            uri.reset();
        } else if (key_ == Key::meta) {
            where = Where::meta;
            version.reset();
        } else {
            value(nullptr);
        }
        key_ = Key::none;
        stack_.push_back(where);
        return true;
    }
    bool end_object() override {
        stack_.pop_back();
        return true;
    }
    bool start_array(std::size_t /*unused*/) override {
        value(nullptr);
        stack_.push_back(Where::other);
        return true;
    }
    bool end_array() override {
        stack_.pop_back();
        return true;
    }
    bool key(string_t& text) override {
        key_ = Key::none;
        switch (stack_.back()) {
            case Where::top:
                if (text == "id") key_ = Key::id;
                if (text == "method") key_ = Key::method;
                if (text == "params") key_ = Key::params;
                break;
            case Where::params:
                if (text == "_meta") key_ = Key::meta;
                if (text == "name") key_ = Key::name;
                if (text == "uri") key_ = Key::uri;
                break;
            case Where::meta:
                if (text == PROTOCOL_VERSION_KEY) key_ = Key::version;
                break;
            case Where::other:
                break;
        }
        return true;
    }
    bool parse_error(std::size_t /*unused*/, const std::string& /*unused*/,
                     const nlohmann::detail::exception& /*unused*/) override {
        return false;
    }

private:
    enum class Where : unsigned char { other, top, params, meta };
    enum class Key : unsigned char { none, id, method, params, meta, version, name, uri };

    /// A value for the key just read (`text` when it is a string; a container is not).
    bool value(const std::string* text) {
        const auto take = [text](std::optional<std::string>& field) {
            if (text != nullptr) {
                field = *text;
            } else {
                field.reset();
            }
        };
        switch (key_) {
            case Key::id:
                has_id = true;
                break;
            case Key::method:
                take(method);
                break;
            case Key::params:  // params that is not an object: nothing under it counts
                version.reset();
                name.reset();
                uri.reset();
                break;
            case Key::meta:
                version.reset();
                break;
            case Key::version:
                take(version);
                break;
            case Key::name:
                take(name);
                break;
            case Key::uri:
                take(uri);
                break;
            case Key::none:
                break;
        }
        key_ = Key::none;
        return true;
    }

    std::vector<Where> stack_;
    Key key_ = Key::none;
};

}  // namespace agentskills::mcp::detail
