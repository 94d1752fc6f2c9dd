import Foundation
import Yams

/// A configuration file that cannot be used; `key` names the setting at fault (`issuer.otp.length`).
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var key: String
    public var message: String
    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }
    public var description: String { key.isEmpty ? message : "\(key): \(message)" }
}

extension ServerConfiguration {
    /// Reads a YAML (or JSON) configuration file.
    public static func load(file path: String) throws -> ServerConfiguration {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(key: "", message: "Cannot read the configuration file \(path).")
        }
        return try parse(yaml: text)
    }

    /// Parses YAML (or JSON) text over the defaults; unknown keys, wrong types and impossible
    /// values are refused with the key they concern. The file is parsed once into YAML's typed
    /// tree (`Node`), laid over the tree of the defaults (`ServerConfiguration()` encoded) and
    /// decoded once.
    public static func parse(yaml text: String) throws -> ServerConfiguration {
        let input: Node?
        do { input = try Yams.compose(yaml: text) } catch {
            throw ConfigurationError(key: "", message: "The file is not valid YAML or JSON: \(error)")
        }
        guard let input, input.null == nil else { return ServerConfiguration() }
        guard let settings = input.mapping else {
            throw ConfigurationError(key: "", message: "The configuration must be a mapping of settings.")
        }
        guard let defaults = try Yams.compose(yaml: YAMLEncoder().encode(ServerConfiguration()))?.mapping else {
            throw ConfigurationError(key: "", message: "The defaults do not encode.")   // cannot happen: a mapping of settings
        }
        let configuration: ServerConfiguration
        do {
            configuration = try YAMLDecoder().decode(ServerConfiguration.self, from: .mapping(merge(settings, over: defaults, path: "")))
        } catch let error as DecodingError {
            throw ConfigurationError(key: error.keyPath, message: "This setting has the wrong type or value.")
        }
        try configuration.validate()
        return configuration
    }

    /// The defaults with the file's settings laid over them, key by key. Which keys exist and
    /// what each holds comes from the settings' declaration (`SettingKeys`); a list is taken
    /// whole, the keys of its elements checked; `issuer.fields` is the issuer's own keys.
    private static func merge(_ input: Node.Mapping, over defaults: Node.Mapping?, path: String) throws -> Node.Mapping {
        var result = defaults ?? [:]
        for (keyNode, value) in input {
            guard let key = keyNode.string else {
                throw ConfigurationError(key: path, message: "Setting names must be strings.")
            }
            let keyPath = path.isEmpty ? key : "\(path).\(key)"
            if keyPath == "issuer.fields" {
                try checkFieldOverrides(value, path: keyPath)
                result[key] = value
                continue
            }
            switch SettingKeys.server.shapes[keyPath] {
            case .mapping?:
                guard let object = value.mapping else {
                    throw ConfigurationError(key: keyPath, message: "This setting must be a mapping.")
                }
                result[key] = .mapping(try merge(object, over: defaults?[key]?.mapping, path: keyPath))
            case .list?:
                try checkElements(of: value, shape: keyPath, path: keyPath)
                result[key] = value
            case .value?:
                result[key] = value.null == nil ? value : nil
            case nil:
                throw ConfigurationError(key: keyPath, message: "Unknown setting.")
            }
        }
        return result
    }

    /// Refuses a key of a list's element (at any depth) that the element's type does not
    /// declare; `shape` is the path in `SettingKeys` (`issuer.mfa.questions`), `path` the one
    /// named in the error (`issuer.mfa.questions[2]`). Types are left to the decoder.
    private static func checkElements(of value: Node, shape: String, path: String) throws {
        if let list = value.sequence {
            for (index, element) in list.enumerated() {
                try checkElements(of: element, shape: shape + "[]", path: "\(path)[\(index)]")
            }
        } else if let object = value.mapping, SettingKeys.server.shapes[shape] == .mapping {
            for (keyNode, nested) in object {
                let key = keyNode.string ?? "?"
                guard SettingKeys.server.shapes[shape + "." + key] != nil else {
                    throw ConfigurationError(key: "\(path).\(key)", message: "Unknown setting.")
                }
                try checkElements(of: nested, shape: shape + "." + key, path: "\(path).\(key)")
            }
        }
    }

    /// `issuer.fields` is a mapping of groups to keys to overrides, taken whole; each override may
    /// name only `FieldOverride.properties`.
    private static func checkFieldOverrides(_ value: Node, path: String) throws {
        guard let groups = value.mapping else { throw ConfigurationError(key: path, message: "This setting must be a mapping.") }
        for (groupNode, fields) in groups {
            let group = "\(path).\(groupNode.string ?? "?")"
            guard let fields = fields.mapping else { throw ConfigurationError(key: group, message: "This setting must be a mapping.") }
            for (keyNode, override) in fields {
                let field = "\(group).\(keyNode.string ?? "?")"
                guard let override = override.mapping else {
                    throw ConfigurationError(key: field, message: "This setting must be a mapping.")
                }
                if let unknown = override.keys.compactMap(\.string).sorted().first(where: { !FieldOverride.properties.contains($0) }) {
                    throw ConfigurationError(key: "\(field).\(unknown)", message: "Unknown setting.")
                }
                for (index, rule) in (override["additionalDataValidations"]?.sequence ?? []).enumerated() {
                    let known: Set<String> = ["minLength", "maxLength", "regex"]
                    if let unknown = rule.mapping?.keys.compactMap(\.string).sorted().first(where: { !known.contains($0) }) {
                        throw ConfigurationError(key: "\(field).additionalDataValidations[\(index)].\(unknown)", message: "Unknown setting.")
                    }
                }
            }
        }
    }

    /// Checks values that decode but cannot work.
    public func validate() throws {
        func require(_ condition: Bool, _ key: String, _ message: String) throws {
            if !condition { throw ConfigurationError(key: key, message: message) }
        }
        try require((1...65535).contains(port), "port", "Must be between 1 and 65535.")
        try require(hashing.algorithm == "scrypt", "hashing.algorithm", "Only scrypt is supported.")
        try require((4...22).contains(hashing.logN), "hashing.logN", "Must be between 4 and 22 (OWASP: 15 or more).")
        try require((1...32).contains(hashing.r), "hashing.r", "Must be between 1 and 32.")
        try require((1...16).contains(hashing.p), "hashing.p", "Must be between 1 and 16.")
        try courier.validate()
        try require(courier.maxAttempts >= 1, "courier.maxAttempts", "Must be at least 1.")
        try require(http.maxBodyBytes >= 1024, "http.maxBodyBytes", "Must be at least 1024.")
        try require((0...65_535).contains(admin.port), "admin.port", "Must be a port number (0 picks a free one).")
        try require(!admin.enabled || admin.onPublicPort || admin.port == 0 || admin.port != port, "admin.port",
                    "The admin listener needs a port of its own (or onPublicPort).")
        try require(admin.requestsPerMinutePerKey >= 1, "admin.requestsPerMinutePerKey", "Must be at least 1.")
        try require(admin.importMaxBytes >= 1024, "admin.importMaxBytes", "Must be at least 1024.")
        try require(admin.consoleURL.map { URL(string: $0)?.scheme.map { ["http", "https"].contains($0) } == true && URL(string: $0)?.host != nil } ?? true,
                    "admin.consoleURL", "Must be an http(s) URL.")
        try require(TrustedProxies(http.trustedProxies) != nil, "http.trustedProxies",
                    "Each entry must be an IP address or a CIDR block (192.0.2.0/24, 2001:db8::/32).")
        let password = issuer.password
        try require(password.passwordMinLength >= 1, "issuer.password.passwordMinLength", "Must be at least 1.")
        try require(password.passwordMaxLength >= password.passwordMinLength, "issuer.password.passwordMaxLength",
                    "Must not be below passwordMinLength.")
        try require((4...12).contains(issuer.passcode.length), "issuer.passcode.length", "Must be between 4 and 12.")
        let mfa = issuer.mfa
        try require(!mfa.questions.isEmpty, "issuer.mfa.questions", "The pool needs at least one question.")
        try require(Set(mfa.questions.map(\.mfaQuestion)).count == mfa.questions.count, "issuer.mfa.questions",
                    "Questions must be distinct.")
        try require((1...mfa.questions.count).contains(mfa.numberOfRequiredQuestions), "issuer.mfa.numberOfRequiredQuestions",
                    "Must be between 1 and the number of questions in the pool.")
        try require(mfa.questions.filter(\.isMandatory).count <= mfa.numberOfRequiredQuestions, "issuer.mfa.questions",
                    "More mandatory questions than numberOfRequiredQuestions.")
        try require(issuer.appInstanceVerificationSeconds > 0, "issuer.appInstanceVerificationSeconds", "Must be positive.")
        try require(issuer.passwordExpiryDays >= 0, "issuer.passwordExpiryDays", "Must not be negative.")
        try require(issuer.registration.unverifiedHours >= 1, "issuer.registration.unverifiedHours", "Must be at least 1.")
        try require(issuer.maxEmailsPerAddressPerHour >= 1, "issuer.maxEmailsPerAddressPerHour", "Must be at least 1.")
        try require(issuer.maxEmailsPerAddressPerHourAllClients >= issuer.maxEmailsPerAddressPerHour,
                    "issuer.maxEmailsPerAddressPerHourAllClients", "Must be at least maxEmailsPerAddressPerHour.")
        try require(issuer.passwordHistory >= 0, "issuer.passwordHistory", "Must not be negative.")
        try require(issuer.lockout.walletThreshold >= 1, "issuer.lockout.walletThreshold", "Must be at least 1.")
        try require(issuer.lockout.deviceThreshold >= 1, "issuer.lockout.deviceThreshold", "Must be at least 1.")
        try require(databaseTimeoutMilliseconds >= 100, "databaseTimeoutMilliseconds", "Must be at least 100.")
        try require(shutdownGraceSeconds >= 1, "shutdownGraceSeconds", "Must be at least 1.")
        try require(hashing.maxQueueMilliseconds >= 1, "hashing.maxQueueMilliseconds", "Must be at least 1.")
        try require(audit.retentionDays >= 0, "audit.retentionDays", "Must not be negative (0 keeps events forever).")
        try require(issuer.lockout.unlinkedThreshold >= 1, "issuer.lockout.unlinkedThreshold", "Must be at least 1.")
        try require(issuer.lockout.temporarySeconds >= 1, "issuer.lockout.temporarySeconds", "Must be at least 1.")
        try require(issuer.lockout.maxTemporarySeconds >= issuer.lockout.temporarySeconds, "issuer.lockout.maxTemporarySeconds",
                    "Must be at least temporarySeconds.")
        try require((4...10).contains(issuer.otp.length), "issuer.otp.length", "Must be between 4 and 10.")
        try require(issuer.otp.lifetimeSeconds > 0, "issuer.otp.lifetimeSeconds", "Must be positive.")
        try require(issuer.otp.maxAttempts >= 1, "issuer.otp.maxAttempts", "Must be at least 1.")
        try require(issuer.otp.resendIntervalSeconds >= 0, "issuer.otp.resendIntervalSeconds", "Must not be negative.")
        try require(issuer.otp.maxSendsPerFlow >= 1, "issuer.otp.maxSendsPerFlow", "Must be at least 1.")
        try require(issuer.otp.maxSendsPerMinutePerNumber >= 1, "issuer.otp.maxSendsPerMinutePerNumber", "Must be at least 1.")
        try require(issuer.otp.maxSendsPerMinutePerIP >= 1, "issuer.otp.maxSendsPerMinutePerIP", "Must be at least 1.")
        try require((1...1440).contains(issuer.signup.flowLifetimeMinutes), "issuer.signup.flowLifetimeMinutes",
                    "Must be between 1 and 1440.")
        try require(issuer.sessions.idleTimeoutSeconds >= 60, "issuer.sessions.idleTimeoutSeconds", "Must be at least 60.")
        try require(issuer.sessions.absoluteTimeoutSeconds >= issuer.sessions.idleTimeoutSeconds,
                    "issuer.sessions.absoluteTimeoutSeconds", "Must not be below idleTimeoutSeconds.")
        try require((1...1440).contains(issuer.reset.linkLifetimeMinutes), "issuer.reset.linkLifetimeMinutes",
                    "Must be between 1 and 1440.")
        try require(issuer.reset.maxAnswerAttempts >= 1, "issuer.reset.maxAnswerAttempts", "Must be at least 1.")
        for (index, provider) in issuer.identityProviders.enumerated() {
            let key = "issuer.identityProviders[\(index)]"
            try require(!provider.id.isEmpty, key + ".id", "Must not be empty.")
            try require(issuer.identityProviders.filter { $0.id == provider.id }.count == 1, key + ".id", "Ids must be distinct.")
            try require(URL(string: provider.issuer).map { ["http", "https"].contains($0.scheme ?? "") && $0.host != nil } ?? false,
                        key + ".issuer", "Must be the provider's http(s) issuer URL.")
            try require(!provider.clientId.isEmpty, key + ".clientId", "Must not be empty.")
            try require(!provider.redirectUri.isEmpty, key + ".redirectUri", "Must not be empty.")
            try require((1...60).contains(provider.timeoutSeconds ?? 5), key + ".timeoutSeconds", "Must be between 1 and 60.")
        }
        try require(issuer.deviceAuthentication.lifetimeDays >= 1, "issuer.deviceAuthentication.lifetimeDays", "Must be at least 1.")
        try require(issuer.statistics.retentionDays >= 0, "issuer.statistics.retentionDays", "Must not be negative (0 keeps them).")
        try issuer.factors.validate(passkeys: issuer.passkeys, publicURL: publicURL)
        try issuer.passkeys.validate(key: "issuer.passkeys")
        try telemetry.tracing.validate(key: "telemetry.tracing")
        _ = try issuer.fieldMetadata()
    }
}

extension DecodingError {
    /// The dotted key path the error concerns.
    package var keyPath: String {
        let path: [any CodingKey]
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
        @unknown default:
            path = []
        }
        return path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            .replacingOccurrences(of: ".[", with: "[").trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }
}
