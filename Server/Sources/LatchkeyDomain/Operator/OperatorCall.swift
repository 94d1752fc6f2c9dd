/// Who makes an operator's call — an operator key (the admin API), an operator signed in to the
/// console, or the command line — and the client address it came from (after the trusted
/// proxies), which its audit event records.
public struct OperatorCall: Sendable, Equatable {
    /// How the operator proved who it is.
    public enum Credential: Sendable, Equatable {
        case key(id: String)
        case console(operatorID: String)
        /// A `latchkey` command run against the database.
        case commandLine
    }

    public let credential: Credential
    /// The key's name or the operator's email address: the `operator` of the events.
    public let name: String
    public let role: OperatorRole
    public let clientIP: String?

    public init(key: OperatorKeyRecord, clientIP: String?) {
        self.credential = .key(id: key.id)
        self.name = key.name
        self.role = key.role
        self.clientIP = clientIP
    }

    public init(console account: OperatorAccount, clientIP: String?) {
        self.credential = .console(operatorID: account.id)
        self.name = account.email
        self.role = account.role
        self.clientIP = clientIP
    }

    /// The command line: whoever runs `latchkey` holds the database, so it may do what an `admin` may.
    public static let commandLine = OperatorCall(credential: .commandLine, name: "command line", role: .admin, clientIP: nil)

    private init(credential: Credential, name: String, role: OperatorRole, clientIP: String?) {
        self.credential = credential
        self.name = name
        self.role = role
        self.clientIP = clientIP
    }

    /// The event details that name the operator (`operatorKey` or `operatorAccount`, and
    /// `operator`); none for the command line, whose events are the operator's (the actor) alone.
    public var details: [String: String] {
        switch credential {
        case .key(let id): ["operatorKey": id, "operator": name]
        case .console(let id): ["operatorAccount": id, "operator": name, "via": "console"]
        case .commandLine: [:]
        }
    }
}
