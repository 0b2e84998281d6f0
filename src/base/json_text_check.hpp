// agentskills-cpp — private: what json::parse leaves to its caller, checked in one pass of
// nlohmann's SAX parser over the text before the document is built: the nesting depth, the number
// of values, and keys that appear twice in one object (json::parse keeps the last value, so a
// reader that keeps the first, or a YAML reader that refuses the repetition, would read another
// document). A SAX pass rather than json::parse's callback: that parser looks through the whole
// enclosing array or object for a discarded value at the end of every object and array, which
// makes a document of many small objects quadratic to read. The lock file and the agent spec's
// JSON form read through it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
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

    /// Runs the pass over `text`; Fault::none when it passed.
    Fault run(std::string_view text) {
        fault_ = Fault::none;
        depth_ = 0;
        values_ = 0;
        (void)json::sax_parse(text, this);
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

    // nlohmann's SAX interface.
    bool null() { return value(); }
    bool boolean(bool /*unused*/) { return value(); }
    bool number_integer(json::number_integer_t /*unused*/) { return value(); }
    bool number_unsigned(json::number_unsigned_t /*unused*/) { return value(); }
    bool number_float(json::number_float_t /*unused*/, const string_t& /*unused*/) { return value(); }
    bool string(string_t& /*unused*/) { return value(); }
    bool binary(json::binary_t& /*unused*/) { return value(); }
    bool start_object(std::size_t /*unused*/) { return enter(true); }
    bool start_array(std::size_t /*unused*/) { return enter(false); }
    bool end_object() { return leave(); }
    bool end_array() { return leave(); }
    bool key(string_t& name) {
        Frame& f = frames_[depth_ - 1];
        if (!f.keys.insert(name).second) {
            key_ = name;
            where_.clear();
            for (std::size_t i = 0; i + 1 < depth_; ++i) {
                const Frame& o = frames_[i];
                where_.push_back(Step{o.object, o.key, o.elements == 0 ? 0 : o.elements - 1});
            }
            return stop(Fault::duplicate_key);
        }
        f.key = name;
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
        std::size_t elements = 0;              // an array's elements so far
        std::string key;                       // an object's latest key
        std::unordered_set<std::string> keys;  // an object's keys so far
    };

    bool stop(Fault f) {
        fault_ = f;
        return false;
    }
    // A value starts: one more value, the next element of an enclosing array.
    bool value() {
        if (limits_.max_values != 0 && ++values_ > limits_.max_values) return stop(Fault::values);
        if (depth_ > 0 && !frames_[depth_ - 1].object) ++frames_[depth_ - 1].elements;
        return true;
    }
    bool enter(bool object) {
        if (!value()) return false;
        if (limits_.max_depth != 0 && depth_ == limits_.max_depth) return stop(Fault::depth);
        if (frames_.size() == depth_) frames_.emplace_back();
        Frame& f = frames_[depth_++];  // frames are kept, so their key sets keep their buckets
        f.object = object;
        f.elements = 0;
        f.key.clear();
        f.keys.clear();
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
    std::string key_;
    std::string syntax_;
    std::vector<Step> where_;
};

}  // namespace agentskills::detail
