// The text of the read_skill_resource tool: one listed file of a skill, read confined.
#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/core.h>

#include "agentskills/activation/activation.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"
#include "texts.hpp"

namespace agentskills {

namespace fs = std::filesystem;

std::string read_skill_resource_text(const LoadedSkill& skill, const SkillReader& reader, std::string_view path,
                                     std::size_t max_bytes) {
    const std::string relative = confined_path(path);
    bool listed = false;
    for (const auto& r : skill.resources) {
        if (r.path == relative) {
            listed = true;
            break;
        }
    }
    const std::string shown = model_text(relative);
    const std::string skill_name = model_text(skill.manifest.name);
    if (!listed) {
        throw NotFoundError(fmt::format("'{}' is not one of the files listed for the skill '{}'", shown, skill_name));
    }
    const std::size_t cap = max_bytes == 0 ? DEFAULT_MAX_RESOURCE_BYTES : max_bytes;
    std::optional<ReadResult> read;
    try {
        read = reader.read_file_beneath(skill.manifest.root, relative, cap);
    } catch (const NotFoundError&) {
    } catch (const IoError&) {
    }
    if (!read) throw NotFoundError(fmt::format("the file '{}' of the skill '{}' cannot be read", shown, skill_name));
    std::string& data = read->data;
    bool text = data.find('\0') == std::string::npos;
    if (text && !is_valid_utf8(data) && read->truncated) {
        // The cap may have cut the last character: drop its first bytes.
        for (std::size_t drop = 1; drop <= 3 && drop <= data.size(); ++drop) {
            if (is_valid_utf8(std::string_view(data).substr(0, data.size() - drop))) {
                data.erase(data.size() - drop);
                break;
            }
        }
    }
    text = text && is_valid_utf8(data);
    if (!text) {
        // The size of the file read (its stat), else what the read saw of it.
        const std::string size = read->stat.size != 0 || (!read->truncated && data.empty())
                                     ? fmt::format("{} bytes", read->stat.size)
                                 : read->truncated ? fmt::format("more than {} bytes", cap)
                                                   : fmt::format("{} bytes", data.size());
        return detail::texts::file_not_text(relative, media_type_for(relative, false), size);
    }
    std::string out = model_text(data);
    if (read->truncated) {
        out += "\n\n";
        out += detail::texts::file_cut_note(relative, cap, data.size());
    }
    return out;
}

}  // namespace agentskills
