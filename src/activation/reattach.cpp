// agentskills-cpp — the activation core, re-attach after compaction: the active skills' content
// again, within a per-skill and a combined budget, most recently activated first.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "agentskills/activation/activation.hpp"
#include "agentskills/activation/prompt.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"
#include "texts.hpp"

namespace agentskills {

namespace {

using Counter = std::function<std::size_t(std::string_view)>;

// The cut form: the opening tag, the first lines of the instructions that fit, the marker line,
// the closing tag. The directory lines and the file list are left out.
class CutForm {
public:
    CutForm(const LoadedSkill& skill, bool reachable)
        : header_(fmt::format("<skill_content name=\"{}\">\n", xml_escape(model_text(skill.manifest.name)))),
          body_(neutralize_wrapper_tags(model_text(skill.instructions))),
          footer_(reattach_cut_marker(reachable ? std::string_view(skill.manifest.skill_file) : std::string_view()) +
                  "\n</skill_content>") {}

    [[nodiscard]] std::string with(std::size_t prefix_bytes) const {
        std::string out = header_;
        if (prefix_bytes > 0) {
            out.append(body_, 0, prefix_bytes);
            out += '\n';
        }
        out += footer_;
        return out;
    }

    // The longest cut form within `limit`: whole lines when at least one fits, else part of the
    // first line (at a character boundary); nullopt when not even the bare form fits.
    [[nodiscard]] std::optional<std::string> fit(std::size_t limit, const Counter& count) const {
        const auto fits = [&](std::size_t prefix) { return count(with(prefix)) <= limit; };
        if (!fits(0)) return std::nullopt;
        std::vector<std::size_t> ends;  // ends of lines, without their '\n'
        for (std::size_t i = 0; i < body_.size(); ++i) {
            if (body_[i] == '\n') ends.push_back(i);
        }
        if (body_.empty() || body_.back() != '\n') ends.push_back(body_.size());
        // Largest k with the first k lines fitting (k = 0 always fits).
        std::size_t lo = 0;
        std::size_t hi = ends.size();
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo + 1) / 2;
            if (fits(ends[mid - 1])) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        if (lo > 0) return with(ends[lo - 1]);
        if (ends.empty() || ends[0] == 0) return with(0);
        // Part of the first line: character boundaries in (0, ends[0]).
        std::vector<std::size_t> bounds;
        for (std::size_t i = 1; i < ends[0]; ++i) {
            if ((static_cast<unsigned char>(body_[i]) & 0xC0U) != 0x80U) bounds.push_back(i);
        }
        lo = 0;
        hi = bounds.size();
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo + 1) / 2;
            if (fits(bounds[mid - 1])) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return with(lo > 0 ? bounds[lo - 1] : 0);
    }

private:
    std::string header_;
    std::string body_;
    std::string footer_;
};

}  // namespace

std::string reattach_cut_marker(std::string_view skill_file) { return detail::texts::reattach_cut_note(skill_file); }

Reattachment SkillActivator::reattach(const ActivationStore& store, const ReattachOptions& options) const {
    const Counter count = options.count ? options.count : Counter(code_point_count);
    Reattachment out;
    std::vector<std::string> names = store.active_names();
    std::reverse(names.begin(), names.end());
    for (const std::string& name : names) {
        const SkillManifest* m = catalog_->find(name);
        if (m == nullptr) {
            out.unavailable.push_back(name);
            continue;
        }
        std::optional<LoadedSkill> skill;
        try {
            skill = catalog_->load(m->name);
        } catch (...) {
            out.unavailable.push_back(name);
            continue;
        }
        std::optional<std::size_t> limit;
        if (options.per_skill_budget != 0) limit = options.per_skill_budget;
        if (options.total_budget != 0) {
            const std::size_t remaining = options.total_budget - std::min(out.size, options.total_budget);
            limit = limit ? std::min(*limit, remaining) : remaining;
        }
        const bool reach = include_directory(*m);
        ReattachedSkill r{.name = m->name, .text = render_activation_text(*skill, {.include_directory = reach})};
        r.size = count(r.text);
        if (limit && r.size > *limit) {
            std::optional<std::string> cut = CutForm(*skill, reach).fit(*limit, count);
            if (!cut) {
                out.omitted.push_back(m->name);
                continue;
            }
            r.text = std::move(*cut);
            r.cut = true;
            r.size = count(r.text);
        }
        out.size += r.size;
        if (!out.text.empty()) out.text += "\n\n";
        out.text += r.text;
        out.skills.push_back(std::move(r));
    }
    return out;
}

}  // namespace agentskills
