import LatchkeyContract
import LatchkeyDomain

/// The device a request acts for: the key its proof proved (`jkt:` and the key's thumbprint);
/// without a proof, the `X-Device-ID` header where `issuer.deviceBinding` is `optional`, and no
/// device where it is `required` — where an operation that acts for a device (`proof: required`
/// in the policy) is refused.
package struct DeviceResolution: Sendable {
    package let deviceBinding: DeviceBindingMode
    package let proofRequired: Bool

    package init(deviceBinding: DeviceBindingMode, policy: OperationPolicy) {
        self.deviceBinding = deviceBinding
        self.proofRequired = policy.proof == .required
    }

    /// Names the device of `client` from `proof`.
    /// - Throws: `DomainError(.invalidDPoPProof)` without a proof where one is required.
    package func resolve(_ client: inout ClientContext, proof: DPoPProof?) throws {
        client.keyThumbprint = proof?.thumbprint
        if let proof {
            client.deviceID = DeviceKeyID.prefix + proof.thumbprint
        } else if deviceBinding == .required {
            client.deviceID = nil
            if proofRequired { throw DPoPVerifier.invalid("This call needs a DPoP proof by the device key.") }
        }
    }
}
