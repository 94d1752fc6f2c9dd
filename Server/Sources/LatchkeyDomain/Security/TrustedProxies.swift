#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The proxies whose `X-Forwarded-For` the server believes (`http.trustedProxies`, CIDRs). The
/// client is the rightmost entry that is not a trusted proxy: entries to its left were written by
/// the client itself and prove nothing. A request whose peer is not a trusted proxy, or any request
/// when the list is empty, is known by its peer address alone.
public struct TrustedProxies: Sendable, Equatable {
    /// One CIDR block, IPv4 or IPv6.
    package struct Block: Sendable, Equatable {
        package let address: [UInt8]
        package let prefix: Int

        package func contains(_ candidate: [UInt8]) -> Bool {
            // An IPv4 address is its IPv4-mapped IPv6 address to an IPv6 block (`::/0` holds it).
            if candidate.count == 4, address.count == 16 { return contains(TrustedProxies.ipv4Mapped + candidate) }
            guard candidate.count == address.count else { return false }
            var remaining = prefix
            for (a, b) in zip(address, candidate) where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if a & mask != b & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    package let blocks: [Block]

    /// Parses `192.0.2.0/24`, `10.0.0.1` (a single address), `2001:db8::/32`; nil for anything else.
    public init?(_ cidrs: [String]) {
        var blocks: [Block] = []
        for cidr in cidrs {
            let parts = cidr.split(separator: "/", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), var address = Self.bytes(String(parts[0])) else { return nil }
            // A block written in IPv6 counts its prefix over 128 bits; one within the IPv4-mapped
            // range (`::ffff:10.0.0.0/104`) is kept as the IPv4 block it is (`10.0.0.0/8`).
            if parts[0].contains(":"), address.count == 4 { address = Self.ipv4Mapped + address }
            guard var prefix = parts.count == 2 ? Int(parts[1]) : address.count * 8, (0...(address.count * 8)).contains(prefix)
            else { return nil }
            if address.count == 16, prefix >= 96, address.prefix(12).elementsEqual(Self.ipv4Mapped) {
                (address, prefix) = (Array(address.suffix(4)), prefix - 96)
            }
            blocks.append(Block(address: address, prefix: prefix))
        }
        self.blocks = blocks
    }

    package func trusts(_ ip: String) -> Bool {
        guard let bytes = Self.bytes(ip) else { return false }
        return blocks.contains { $0.contains(bytes) }
    }

    /// The client of a request from `peer` that carries these `X-Forwarded-For` values (in order).
    public func client(peer: String, forwardedFor: [String]) -> String {
        guard !blocks.isEmpty, trusts(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            // A hop that is not an IP address was written by someone the proxies do not vouch for.
            guard Self.bytes(hop) != nil else { return hop.isEmpty ? peer : "invalid" }
            if !trusts(hop) { return hop }
        }
        return hops.first ?? peer
    }

    /// The address's bytes (4 for IPv4, 16 for IPv6), or nil. An IPv4-mapped IPv6 address
    /// (`::ffff:192.0.2.1`, how a server listening on `::` sees an IPv4 peer) is its IPv4 address.
    package static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let address = withUnsafeBytes(of: &v6) { Array($0) }
        return address.prefix(12).elementsEqual(ipv4Mapped) ? Array(address.suffix(4)) : address
    }

    /// The first 96 bits of an IPv4-mapped IPv6 address (RFC 4291, 2.5.5.2).
    package static let ipv4Mapped: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
}
