import Hummingbird
import LatchkeyDomain
import NIOCore

extension TrustedProxies {
    /// The address `request` comes from under the `http.trustedProxies` setting: its peer, or, from
    /// a trusted proxy, the rightmost `X-Forwarded-For` entry that is not a trusted proxy
    /// (`client(peer:forwardedFor:)`); `unknown` when the peer is not known. The one reading of
    /// it: the API's edge, the audit trail, the pages' limits, the admin API and the console ask it.
    package func clientAddress(of request: Request, peer: SocketAddress?) -> String {
        client(peer: peer?.ipAddress ?? ClientContext.unknownAddress, forwardedFor: request.headers[values: .xForwardedFor])
    }
}
