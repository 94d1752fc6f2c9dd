/// What an operation of the contract asks of a request beyond its body: the device-binding rules
/// (RFC 9449) and the session it accepts. Declared per operation in `openapi.yaml` as
/// `x-latchkey-policy` and generated into `OperationPolicy.all` (`Scripts/generate-api`), so the
/// server looks a request's rules up from the operation it was routed to, never from how its path
/// was spelled.
public struct OperationPolicy: Sendable, Equatable {
    /// Whether the call needs a DPoP proof when the issuer's `deviceBinding` is `required`.
    public enum Proof: String, Sendable {
        /// A proof is checked when sent; without one the call acts for no device key.
        case optional
        /// The call acts for a device (a login, a registration): with `deviceBinding: required`
        /// it is refused without a proof.
        case required
    }

    /// Which sessions the call accepts when a session token is sent.
    public enum SessionKind: String, Sendable {
        /// A wallet session: not a phone sign-up's limited one, and bound to a device key when the
        /// issuer requires binding.
        case full
        /// Any live session, a phone sign-up's limited one included (Kratos's routes).
        case limited
    }

    /// The contract's `operationId`.
    public let operationID: String
    /// The HTTP method, upper case.
    public let method: String
    /// The path template, parameters as `{name}`.
    public let path: String
    public let proof: Proof
    /// A proof sent with the call must carry the server's current `DPoP-Nonce` (the calls that
    /// check a credential or open a session).
    public let nonce: Bool
    /// The proof is recorded in the database, so no replica accepts it a second time.
    public let recordProof: Bool
    public let session: SessionKind
    /// The call needs a session whose login checked a knowledge factor within the issuer's
    /// `sessions.privilegedSeconds` (403 `session_refresh_required` otherwise).
    public let privileged: Bool
    /// The fewest hashes the operation runs for any request that reaches its work: the edge
    /// admits them (`HashGate`) before it verifies or records anything, so a request the hash
    /// gate would refuse is refused first and cheaply.
    public let hashes: Int

    public init(operationID: String, method: String, path: String, proof: Proof, nonce: Bool, recordProof: Bool,
                session: SessionKind, privileged: Bool, hashes: Int = 0) {
        self.operationID = operationID
        self.method = method
        self.path = path
        self.proof = proof
        self.nonce = nonce
        self.recordProof = recordProof
        self.session = session
        self.privileged = privileged
        self.hashes = hashes
    }

    /// The policy of the operation registered for `method` and the path template `path`.
    public static func of(method: String, path: String) -> OperationPolicy? {
        byRoute[method + " " + path]
    }

    private static let byRoute: [String: OperationPolicy] = Dictionary(uniqueKeysWithValues: all.map { ($0.method + " " + $0.path, $0) })
}
