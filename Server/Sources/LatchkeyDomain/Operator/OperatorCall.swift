/// Who makes an admin call: the operator key it was authenticated with and the client address
/// it came from (after the trusted proxies), which its audit event records.
public struct OperatorCall: Sendable, Equatable {
    public let key: OperatorKeyRecord
    public let clientIP: String?

    public init(key: OperatorKeyRecord, clientIP: String?) {
        self.key = key
        self.clientIP = clientIP
    }
}
