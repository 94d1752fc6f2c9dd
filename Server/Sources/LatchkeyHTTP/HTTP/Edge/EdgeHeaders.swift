import HTTPTypes

/// The request headers the edge reads, taken in one pass over the request's fields: this runs
/// for every API request, and each read through `HTTPFields`' subscript is a pass of its own that
/// joins what it finds into a new string. A header sent more than once reads as its values joined
/// by ", ", as the subscript reads it; the DPoP proofs are kept one by one (more than one is
/// refused, `ProofCheck`).
package struct EdgeHeaders {
    /// The app context headers of the spec's `PDPaydiantContext` (`ClientContext(headers:…)`).
    package var applicationSignature, deviceID, deviceType, appVersion, sdkVersion, acceptLanguage: String?
    /// The session's credential (`SessionCredential`): `Authorization`, and Kratos's `X-Session-Token`.
    package var authorization, sessionToken: String?
    /// The client's `X-Request-ID`, kept when sane (`Request.requestID`).
    package var requestID: String?
    /// Each `DPoP` field's value, in order.
    package var proofs: [String] = []

    package init(_ headers: HTTPFields) {
        func joined(_ previous: String?, _ value: String) -> String { previous.map { $0 + ", " + value } ?? value }
        for field in headers {
            switch field.name {
            case .authorization: authorization = joined(authorization, field.value)
            case .dpop: proofs.append(field.value)
            case .applicationSignature: applicationSignature = joined(applicationSignature, field.value)
            case .deviceID: deviceID = joined(deviceID, field.value)
            case .deviceType: deviceType = joined(deviceType, field.value)
            case .appVersion: appVersion = joined(appVersion, field.value)
            case .sdkVersion: sdkVersion = joined(sdkVersion, field.value)
            case .acceptLanguage: acceptLanguage = joined(acceptLanguage, field.value)
            case .sessionToken: sessionToken = joined(sessionToken, field.value)
            case .requestID: requestID = joined(requestID, field.value)
            default: break
            }
        }
    }
}
