/// Who makes an admin call — an operator key (the admin API) or an operator signed in to the
/// console — and the client address it came from (after the trusted proxies), which its audit
/// event records.
public struct OperatorCall: Sendable, Equatable {
    /// How the operator proved who it is.
    public enum Credential: Sendable, Equatable {
        case key(id: String)
        case console(operatorID: String)
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

    /// The event details that name the operator (`operatorKey` or `operatorAccount`, and `operator`).
    public var details: [String: String] {
        switch credential {
        case .key(let id): ["operatorKey": id, "operator": name]
        case .console(let id): ["operatorAccount": id, "operator": name, "via": "console"]
        }
    }
}
