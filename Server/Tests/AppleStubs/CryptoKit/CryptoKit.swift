// Apple CryptoKit's Secure Enclave keys, as far as the SDK uses them. On Apple platforms
// swift-crypto's `Crypto` re-exports CryptoKit, so `P256` here is the type `Crypto.P256` names.
// See ../README.md for how these stubs are written and used.
import Crypto
import Foundation

/// `enum SecureEnclave`
public enum SecureEnclave {
    /// `static let isAvailable: Bool`
    public static let isAvailable = false

    /// `enum P256`
    public enum P256 {
        /// `enum Signing`
        public enum Signing {
            /// `struct PrivateKey` (a value type CryptoKit declares `Sendable`).
            public struct PrivateKey: Sendable {
                /// `init(compactRepresentable: Bool = true, accessControl: SecAccessControl = …,
                /// authenticationContext: LAContext? = nil) throws`, its defaulted parameters left out.
                public init(compactRepresentable: Bool = true) throws { fatalError() }

                /// `init(dataRepresentation: Data, authenticationContext: LAContext? = nil) throws`,
                /// the context left out.
                public init(dataRepresentation: Data) throws { fatalError() }

                /// `let dataRepresentation: Data`
                public let dataRepresentation: Data

                /// `let publicKey: P256.Signing.PublicKey`
                public let publicKey: Crypto.P256.Signing.PublicKey

                /// `func signature<D>(for data: D) throws -> P256.Signing.ECDSASignature where D : DataProtocol`
                public func signature<D: DataProtocol>(for data: D) throws -> Crypto.P256.Signing.ECDSASignature { fatalError() }
            }
        }
    }
}
