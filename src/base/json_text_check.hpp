// agentskills-cpp — private: the one reader of JSON text from outside (MCP messages, both ways;
// plugin manifests; the lock file; the agent spec's JSON form). One pass of nlohmann's SAX parser
// builds the document and checks what json::parse leaves to its caller: the nesting depth, the
// number of values, and keys that appear twice in one object. json::parse keeps the last value of
// a repeated key, so a reader that keeps the first (a proxy, another SDK) or a YAML reader that
// refuses the repetition would read another document than ours: the repetition is refused. A SAX
// handler rather than json::parse's callback: that parser looks through the whole enclosing array
// or object for a discarded value at the end of every object and array, which makes a document of
// many small objects quadratic to read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace agentskills::detail {

class JsonTextCheck {
public:
    using json = nlohmann::json;
    using string_t = json::string_t;

    struct Limits {
        std::size_t max_depth = 0;   ///< levels of arrays and objects (the top one is level 1); 0 = none
        std::size_t max_values = 0;  ///< values, arrays and objects included; 0 = none
    };
    enum class Fault { none, depth, values, duplicate_key, syntax };
    /// One step of the place a fault is at: an object's member or an array's element.
    struct Step {
        bool object = false;
        std::string key;          ///< an object's latest key
        std::size_t element = 0;  ///< an array's element, from 0
    };

    explicit JsonTextCheck(Limits limits) : limits_(limits) {}

    /// Reads `text` (one JSON value, nothing after it but white space) into `out`: Fault::none
    /// when it passed; else `out` is null and fault(), key(), where() and syntax_error() say why.
    Fault parse(std::string_view text, json& out) {
        fault_ = Fault::none;
        depth_ = 0;
        values_ = 0;
        out = nullptr;
        root_ = &out;
        slot_ = nullptr;
        if (!json::sax_parse(text, this) && fault_ == Fault::none) fault_ = Fault::syntax;
        if (fault_ != Fault::none) out = nullptr;
        root_ = nullptr;
        return fault_;
    }

    [[nodiscard]] Fault fault() const noexcept { return fault_; }
    /// The repeated key (Fault::duplicate_key).
    [[nodiscard]] const std::string& key() const noexcept { return key_; }
    /// The parser's message (Fault::syntax).
    [[nodiscard]] const std::string& syntax_error() const noexcept { return syntax_; }
    /// Where the object holding the repeated key is, from the top (empty: the top-level value).
    [[nodiscard]] const std::vector<Step>& where() const noexcept { return where_; }
    /// where() as a JSON pointer (RFC 6901): /skills/3/files.
    [[nodiscard]] std::string pointer() const {
        std::string out;
        for (const Step& s : where_) {
            out += '/';
            if (!s.object) {
                out += std::to_string(s.element);
                continue;
            }
            for (char c : s.key) {
                if (c == '~') {
                    out += "~0";
                } else if (c == '/') {
                    out += "~1";
                } else {
                    out += c;
                }
            }
        }
        return out;
    }

    // nlohmann's SAX interface. The lexer's strings are moved from: it clears its buffer before
    // the next token.
    bool null() { return put(nullptr); }
    bool boolean(bool v) { return put(v); }
    bool number_integer(json::number_integer_t v) { return put(v); }
    bool number_unsigned(json::number_unsigned_t v) { return put(v); }
    bool number_float(json::number_float_t v, const string_t& /*unused*/) { return put(v); }
    bool string(string_t& v) { return put(std::move(v)); }
    bool binary(json::binary_t& v) { return put(std::move(v)); }
    bool start_object(std::size_t /*unused*/) { return enter(true); }
    bool start_array(std::size_t /*unused*/) { return enter(false); }
    bool end_object() { return leave(); }
    bool end_array() { return leave(); }
    bool key(string_t& name) {
        Frame& f = frames_[depth_ - 1];
        auto& members = f.node->get_ref<json::object_t&>();
        const auto [it, inserted] = members.emplace(std::move(name), nullptr);
        if (!inserted) {
            key_ = it->first;
            where_.clear();
            for (std::size_t i = 0; i + 1 < depth_; ++i) {
                const Frame& o = frames_[i];
                where_.push_back(
                    Step{o.object, o.key != nullptr ? *o.key : std::string(), o.elements == 0 ? 0 : o.elements - 1});
            }
            return stop(Fault::duplicate_key);
        }
        f.key = &it->first;
        slot_ = &it->second;
        return true;
    }
    template <class Exception>
    bool parse_error(std::size_t /*unused*/, const std::string& /*unused*/, const Exception& e) {
        syntax_ = e.what();
        return stop(Fault::syntax);
    }

private:
    struct Frame {
        bool object = false;
        std::size_t elements = 0;          // an array's elements so far
        const std::string* key = nullptr;  // an object's latest key (in the object's own map)
        json* node = nullptr;              // the array or object being filled
    };

    bool stop(Fault f) {
        fault_ = f;
        return false;
    }
    // A value starts: one more value, and where it goes (the top, the next element of the
    // enclosing array, or the member whose key came last); nullptr when a limit stops the pass.
    json* place() {
        if (limits_.max_values != 0 && ++values_ > limits_.max_values) {
            stop(Fault::values);
            return nullptr;
        }
        if (depth_ == 0) return root_;
        Frame& f = frames_[depth_ - 1];
        if (f.object) return slot_;
        ++f.elements;
        auto& elements = f.node->get_ref<json::array_t&>();
        elements.emplace_back();
        return &elements.back();
    }
    template <class V>
    bool put(V&& v) {
        json* at = place();
        if (at == nullptr) return false;
        *at = json(std::forward<V>(v));
        return true;
    }
    bool enter(bool object) {
        json* at = place();
        if (at == nullptr) return false;
        if (limits_.max_depth != 0 && depth_ == limits_.max_depth) return stop(Fault::depth);
        // An element's slot stays put while it is filled: its array gets no other element until
        // it is closed, and an object's members are map nodes.
        *at = object ? json::object() : json::array();
        if (frames_.size() == depth_) frames_.emplace_back();
        Frame& f = frames_[depth_++];
        f.object = object;
        f.elements = 0;
        f.key = nullptr;
        f.node = at;
        return true;
    }
    bool leave() {
        --depth_;
        return true;
    }

    Limits limits_;
    Fault fault_ = Fault::none;
    std::vector<Frame> frames_;
    std::size_t depth_ = 0;
    std::size_t values_ = 0;
    json* root_ = nullptr;
    json* slot_ = nullptr;
    std::string key_;
    std::string syntax_;
    std::vector<Step> where_;
};

}  // namespace agentskills::detail
