// agentskills-cpp MCP client — the session: request ids, the protocol era (server/discover or the
// initialize handshake) and JSON-RPC errors.
#include <mutex>
#include <string>
#include <utility>

#include <fmt/core.h>

#include "../shared/internal.hpp"
#include "agentskills/base/version.hpp"
#include "agentskills/mcp/client.hpp"
#include "client_internal.hpp"

namespace agentskills::mcp {

using nlohmann::json;

namespace {

constexpr std::string_view MODERN = "2026-07-28";
constexpr std::string_view HANDSHAKE = "2025-11-25";
constexpr std::string_view SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/// The body field that the `Mcp-Name` header mirrors (detail::mcp_name_field); nullptr for other
/// methods and when the field is not a string (then no header is sent).
const json* name_source(std::string_view method, const json& params) {
    const std::string_view field = detail::mcp_name_field(method);
    if (field.empty()) return nullptr;
    const auto it = params.find(field);
    return it != params.end() && it->is_string() ? &*it : nullptr;
}

json client_capabilities() { return {{"extensions", {{std::string(SKILLS_EXTENSION), json::object()}}}}; }

}  // namespace

struct Client::Impl {
    std::unique_ptr<ClientTransport> transport;
    ProtocolEra requested = ProtocolEra::automatic;
    ProtocolEra era = ProtocolEra::automatic;
    bool settled = false;
    bool broken = false;
    std::int64_t next_id = 1;
    mutable std::mutex mutex;

    json send(std::string_view method, json params, ProtocolEra as) {
        if (broken) throw ClientError("the connection to the MCP server is closed");
        if (!params.is_object()) params = json::object();
        std::vector<std::pair<std::string, std::string>> headers;
        if (as == ProtocolEra::v2026_07_28) {
            json& meta = params["_meta"];
            if (!meta.is_object()) meta = json::object();
            meta["io.modelcontextprotocol/protocolVersion"] = MODERN;
            meta["io.modelcontextprotocol/clientCapabilities"] = client_capabilities();
            headers.emplace_back("MCP-Protocol-Version", std::string(MODERN));
            headers.emplace_back("Mcp-Method", std::string(method));
            if (const json* mirrored = name_source(method, params)) {
                headers.emplace_back("Mcp-Name", detail::header_value(mirrored->get_ref<const std::string&>()));
            }
        } else if (settled) {
            headers.emplace_back("MCP-Protocol-Version", std::string(HANDSHAKE));
        }
        const json id = next_id++;
        json request = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
        json response;
        try {
            response = transport->request(request, id, headers);
        } catch (const ClientError&) {
            broken = true;
            throw;
        }
        if (const auto err = response.find("error"); err != response.end()) {
            int code = -32603;
            std::string message = "error without a message";
            if (err->is_object()) {
                if (err->contains("code") && (*err)["code"].is_number_integer()) {
                    const auto c = (*err)["code"].get<std::int64_t>();
                    if (c >= INT32_MIN && c <= INT32_MAX) code = static_cast<int>(c);
                }
                if (err->contains("message") && (*err)["message"].is_string()) {
                    message = (*err)["message"].get<std::string>();
                    if (message.size() > 300) message = message.substr(0, 300) + "...";
                }
            }
            throw ServerError(code, fmt::format("the MCP server answered {} with error {}: {}", method, code, message));
        }
        return std::move(response["result"]);
    }

    void handshake() {
        json params = {{"protocolVersion", HANDSHAKE},
                       {"capabilities", client_capabilities()},
                       {"clientInfo", {{"name", "agentskills-cpp"}, {"version", std::string(version_string)}}}};
        json result = send("initialize", std::move(params), ProtocolEra::v2025_11_25);
        if (!result.is_object() || !result.contains("protocolVersion") || !result["protocolVersion"].is_string()) {
            broken = true;
            throw ClientError("the MCP server's initialize result has no protocolVersion");
        }
        era = ProtocolEra::v2025_11_25;
        settled = true;
        try {
            transport->notify({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                              {{"MCP-Protocol-Version", std::string(HANDSHAKE)}});
        } catch (const ClientError&) {
            broken = true;
            throw;
        }
    }

    bool discover() {
        json result = send("server/discover", json::object(), ProtocolEra::v2026_07_28);
        bool supported = false;
        if (result.is_object() && result.contains("supportedVersions") && result["supportedVersions"].is_array()) {
            for (const auto& v : result["supportedVersions"]) supported = supported || v == MODERN;
        }
        if (supported) {
            era = ProtocolEra::v2026_07_28;
            settled = true;
        }
        return supported;
    }

    void settle() {
        if (requested == ProtocolEra::v2025_11_25) return handshake();
        if (requested == ProtocolEra::v2026_07_28) {
            if (!discover()) throw ClientError("the MCP server does not support protocol version 2026-07-28");
            return;
        }
        try {
            if (discover()) return;
        } catch (const ServerError&) {
            // An older server: the handshake era.
        }
        handshake();
    }
};

Client::Client(std::unique_ptr<ClientTransport> transport, ProtocolEra era) : impl_(std::make_unique<Impl>()) {
    if (!transport) throw ConfigurationError("mcp::Client: no transport");
    impl_->transport = std::move(transport);
    impl_->requested = era;
}

Client::~Client() = default;

json Client::call(std::string_view method, json params) {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->settled) impl_->settle();
    return impl_->send(method, std::move(params), impl_->era);
}

ProtocolEra Client::era() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->era;
}

}  // namespace agentskills::mcp
