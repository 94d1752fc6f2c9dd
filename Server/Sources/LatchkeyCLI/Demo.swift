import ArgumentParser
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer

/// `latchkey demo`: walks the enrollment journey through the SDK and prints each step. Without
/// `--server` it starts its own server on a temporary database and reads its outbox file; with
/// `--server` and `--outbox` it reads that server's outbox file (its courier's `file` channel),
/// else it asks for the links and codes the server sent.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Walk every flow through the SDK against a server.")
    @Option(help: "A running server's URL; without it the demo starts its own.") var server: String?
    @Option(help: "The application signature to send.") var applicationSignature = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
    @Option(help: "Issuer settings for the in-process server (e.g. identityProviders, to walk SSO).") var config: String?
    @Option(help: "With --server: an identity provider id of that server, to walk SSO.") var identityProvider: String?
    @Option(help: "With --server: that server's outbox file (courier channel file), read for its links and codes.") var outbox: String?

    func run() async throws {
        if let server {
            guard let url = URL(string: server) else { throw ValidationError("--server must be a URL") }
            try await DemoJourney(serverURL: url, signature: applicationSignature, outbox: outbox).run()
            if let identityProvider {
                try await SSOWalk(serverURL: url, signature: applicationSignature, provider: identityProvider,
                                  authorizationURL: nil).run()
            }
            print("Demo complete.")
            return
        }
        guard outbox == nil else { throw ValidationError("--outbox names a running server's outbox: use it with --server") }
        let file = try config.map(ServerConfiguration.load(file:))
        let server = try await InProcessServer.start(logger: makeLogger(level: .error)) { configuration in
            if let file { configuration.issuer = file.issuer }
            configuration.courier.pollIntervalMilliseconds = 100
            configuration.rateLimits.credentialAttemptsPerMinutePerAccount = 30
        }
        print("Started an in-process server on \(server.url) (temporary SQLite database)")
        do {
            try await DemoJourney(serverURL: server.url, signature: applicationSignature,
                                  outbox: server.application.configuration.courier.path).run()
            for provider in server.application.configuration.issuer.identityProviders {
                try await SSOWalk(serverURL: server.url, signature: applicationSignature, provider: provider.id,
                                  authorizationURL: await Self.authorizationURL(provider)).run()
            }
            print("Demo complete.")
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }

    /// The provider's authorization URL for the configured client, from its discovery document.
    static func authorizationURL(_ provider: IdentityProviderSettings) async -> String? {
        guard let discovery = URL(string: provider.issuer.trimmingCharacters(in: ["/"]) + "/.well-known/openid-configuration"),
              let (data, _) = try? await URLSession.shared.data(from: discovery),
              let endpoint = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["authorization_endpoint"] as? String,
              var components = URLComponents(string: endpoint) else { return nil }
        components.queryItems = [URLQueryItem(name: "client_id", value: provider.clientId),
                                 URLQueryItem(name: "redirect_uri", value: provider.redirectUri),
                                 URLQueryItem(name: "response_type", value: "code"),
                                 URLQueryItem(name: "scope", value: "openid email profile")]
        return components.url?.absoluteString
    }
}
