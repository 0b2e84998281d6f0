// agentskills-cpp MCP — what server and client share: base64, URI escapes, ids and MIME types.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/core.h>

#include <openssl/rand.h>

#include "../../base/json_text_check.hpp"
#include "agentskills/base/names.hpp"
#include "internal.hpp"

namespace agentskills::mcp::detail {

namespace {
constexpr char HEX[] = "0123456789abcdef";
constexpr char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
}  // namespace

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const auto n = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i]) << 16 |
                                                  static_cast<unsigned char>(bytes[i + 1]) << 8 |
                                                  static_cast<unsigned char>(bytes[i + 2]));
        out.push_back(B64[(n >> 18) & 63]);
        out.push_back(B64[(n >> 12) & 63]);
        out.push_back(B64[(n >> 6) & 63]);
        out.push_back(B64[n & 63]);
    }
    const std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        std::uint32_t n = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i]) << 16);
        if (rest == 2) n |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1]) << 8);
        out.push_back(B64[(n >> 18) & 63]);
        out.push_back(B64[(n >> 12) & 63]);
        out.push_back(rest == 2 ? B64[(n >> 6) & 63] : '=');
        out.push_back('=');
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0) return std::nullopt;
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (std::size_t i = 0; i < text.size(); i += 4) {
        std::uint32_t n = 0;
        int pad = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const char c = text[i + k];
            int v = 0;
            if (c == '=') {
                if (i + 4 != text.size() || k < 2) return std::nullopt;
                ++pad;
            } else {
                if (pad > 0) return std::nullopt;
                const char* p = std::char_traits<char>::find(B64, 64, c);
                if (p == nullptr) return std::nullopt;
                v = static_cast<int>(p - B64);
            }
            n = (n << 6) | static_cast<std::uint32_t>(v);
        }
        out.push_back(static_cast<char>((n >> 16) & 0xFF));
        if (pad < 2) out.push_back(static_cast<char>((n >> 8) & 0xFF));
        if (pad < 1) out.push_back(static_cast<char>(n & 0xFF));
    }
    return out;
}

std::string header_value(std::string_view value) {
    constexpr std::string_view prefix = "=?base64?";
    constexpr std::string_view suffix = "?=";
    bool plain =
        value.empty() || (value.front() != ' ' && value.front() != '\t' && value.back() != ' ' && value.back() != '\t');
    for (const char ch : value) {
        const auto c = static_cast<unsigned char>(ch);
        plain = plain && ((c >= 0x20 && c <= 0x7E) || c == '\t');
    }
    // The pattern as a server tests it: the prefix and the suffix may overlap ("=?base64?=").
    const bool sentinel = value.substr(0, prefix.size()) == prefix && value.size() >= suffix.size() &&
                          value.substr(value.size() - suffix.size()) == suffix;
    if (plain && !sentinel) return std::string(value);
    return std::string(prefix) + base64_encode(value) + std::string(suffix);
}

std::optional<std::string> decode_header_value(std::string_view value) {
    constexpr std::string_view prefix = "=?base64?";
    constexpr std::string_view suffix = "?=";
    if (value.size() >= prefix.size() + suffix.size() && value.substr(0, prefix.size()) == prefix &&
        value.substr(value.size() - suffix.size()) == suffix) {
        return base64_decode(value.substr(prefix.size(), value.size() - prefix.size() - suffix.size()));
    }
    return std::string(value);
}

std::string_view mcp_name_field(std::string_view method) noexcept {
    if (method == "tools/call" || method == "prompts/get") return "name";
    if (method == "resources/read") return "uri";
    return {};
}

bool is_media_type(std::string_view content_type, std::string_view media_type) noexcept {
    std::string_view type = content_type.substr(0, content_type.find(';'));
    while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
    while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
    return type.size() == media_type.size() &&
           std::equal(type.begin(), type.end(), media_type.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == static_cast<unsigned char>(b);
           });
}

std::string encode_segment(std::string_view segment) {
    std::string out;
    out.reserve(segment.size());
    for (char ch : segment) {
        const auto c = static_cast<unsigned char>(ch);
        const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                          std::string_view("-._~!$&'()*+,;=:@").find(ch) != std::string_view::npos;
        if (keep) {
            out.push_back(ch);
        } else {
            out.push_back('%');
            out.push_back(static_cast<char>(std::toupper(HEX[c >> 4])));
            out.push_back(static_cast<char>(std::toupper(HEX[c & 0x0F])));
        }
    }
    return out;
}

std::optional<std::string> decode_percent(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out.push_back(text[i]);
            continue;
        }
        if (i + 2 >= text.size()) return std::nullopt;
        const int hi = hex_value(text[i + 1]);
        const int lo = hex_value(text[i + 2]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
    }
    return out;
}

namespace {

// nlohmann's SAX events for one message: the raw token of the last top-level member "id" when
// it is a float (only floats carry their text in the SAX interface; integers are exact).
class IdToken final : public nlohmann::json_sax<nlohmann::json> {
public:
    std::optional<std::string> raw;

    bool null() override { return value(); }
    bool boolean(bool /*v*/) override { return value(); }
    bool number_integer(number_integer_t /*v*/) override { return value(); }
    bool number_unsigned(number_unsigned_t /*v*/) override { return value(); }
    bool number_float(number_float_t /*v*/, const string_t& s) override {
        if (depth_ == 1 && at_id_) raw = s;
        return value();
    }
    bool string(string_t& /*v*/) override { return value(); }
    bool binary(binary_t& /*v*/) override { return value(); }
    bool start_object(std::size_t /*n*/) override { return open(); }
    bool key(string_t& k) override {
        at_id_ = depth_ == 1 && k == "id";
        if (at_id_) raw.reset();  // a later "id" replaces an earlier one
        return true;
    }
    bool end_object() override { return close(); }
    bool start_array(std::size_t /*n*/) override { return open(); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t /*at*/, const std::string& /*token*/,
                     const nlohmann::detail::exception& /*e*/) override {
        return false;
    }

private:
    bool value() {
        if (depth_ == 1) at_id_ = false;
        return true;
    }
    bool open() {
        if (depth_ == 1) at_id_ = false;
        ++depth_;
        return true;
    }
    bool close() {
        --depth_;
        return true;
    }
    std::size_t depth_ = 0;
    bool at_id_ = false;
};

}  // namespace

std::string id_text(std::string_view message, const nlohmann::json& id) {
    if (id.is_number_float()) {
        IdToken sax;
        if (nlohmann::json::sax_parse(message, &sax) && sax.raw) return *sax.raw;
    }
    return id.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string random_hex_id() {
    std::array<unsigned char, 16> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
        throw std::runtime_error("no random bytes (OpenSSL RAND_bytes)");
    }
    std::string out;
    for (unsigned char b : bytes) {
        out.push_back(HEX[b >> 4]);
        out.push_back(HEX[b & 0x0F]);
    }
    return out;
}

namespace {

bool raw_uri_char(unsigned char c) {
    if (c >= 0x80) return true;  // checked as UTF-8 after decoding
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    switch (c) {
        case '-':
        case '.':
        case '_':
        case '~':
        case '!':
        case '$':
        case '&':
        case '\'':
        case '(':
        case ')':
        case '*':
        case '+':
        case ',':
        case ';':
        case '=':
        case ':':
        case '@':
        case '%':
            return true;
        default:
            return false;
    }
}

}  // namespace

std::optional<SkillUri> parse_skill_uri(std::string_view uri, std::string& why) {
    auto fail = [&](std::string text) -> std::optional<SkillUri> {
        why = std::move(text);
        return std::nullopt;
    };
    if (uri.size() > MAX_URI_BYTES) return fail(fmt::format("longer than {} bytes", MAX_URI_BYTES));
    if (uri.substr(0, SCHEME.size()) != SCHEME) return fail("not a skill:// URI");
    const std::string_view path = uri.substr(SCHEME.size());
    SkillUri out;
    std::size_t pos = 0;
    while (true) {
        if (out.segments.size() >= MAX_URI_SEGMENTS)
            return fail(fmt::format("more than {} segments", MAX_URI_SEGMENTS));
        std::size_t end = path.find('/', pos);
        if (end == std::string_view::npos) end = path.size();
        const std::string_view raw = path.substr(pos, end - pos);
        if (raw.empty()) return fail("an empty path segment");
        for (char ch : raw) {
            const auto c = static_cast<unsigned char>(ch);
            if (c == '?') return fail("a query");
            if (c == '#') return fail("a fragment");
            if (!raw_uri_char(c)) return fail(fmt::format("the character 0x{:02x} is not allowed unescaped", c));
        }
        if (raw == "." || raw == "..") return fail("a '.' or '..' segment");
        std::optional<std::string> decoded = decode_percent(raw);
        if (!decoded) return fail("a malformed percent escape");
        if (*decoded == "." || *decoded == ".." || decoded->empty())
            return fail("a segment that decodes to '.' or '..'");
        for (char ch : *decoded) {
            const auto c = static_cast<unsigned char>(ch);
            if (c == '/' || c == '\\') return fail("a segment that decodes to a path separator");
            if (c < 0x20 || c == 0x7f) return fail("a segment that decodes to a control character");
        }
        if (!is_valid_utf8(*decoded)) return fail("a segment that is not UTF-8");
        if (out.segments.empty() &&
            (raw.find('@') != std::string_view::npos || raw.find(':') != std::string_view::npos)) {
            return fail("user information or a port in the authority");
        }
        out.segments.push_back(std::move(*decoded));
        if (end == path.size()) break;
        pos = end + 1;
    }
    return out;
}

MessageFault read_message(std::string_view text, std::size_t max_depth, nlohmann::json& out,
                          std::string* repeated_key) {
    using Fault = agentskills::detail::JsonTextCheck::Fault;
    // The reader's 0 means no bound; a server's max_json_depth of 0 admits no array or object.
    agentskills::detail::JsonTextCheck reader({.max_depth = max_depth == 0 ? 1 : max_depth});
    switch (reader.parse(text, out)) {
        case Fault::none:
            if (max_depth == 0 && out.is_structured()) {
                out = nullptr;
                return MessageFault::depth;
            }
            return MessageFault::none;
        case Fault::depth:
            return MessageFault::depth;
        case Fault::duplicate_key:
            if (repeated_key != nullptr) *repeated_key = reader.key();
            return MessageFault::duplicate_key;
        case Fault::values:  // no value bound is set
        case Fault::syntax:
            break;
    }
    return MessageFault::syntax;
}

}  // namespace agentskills::mcp::detail
