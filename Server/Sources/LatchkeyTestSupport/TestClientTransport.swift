import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import NIOCore
import OpenAPIRuntime

/// The contract's generated `Client` over a Hummingbird test client, so server tests send and read
/// typed bodies (`Operations…Input`, `…Output`) wherever the operation exists; raw HTTP stays for
/// what a client cannot send (malformed input, attacks).
public struct TestClientTransport: ClientTransport {
    let client: any TestClientProtocol

    public init(_ client: any TestClientProtocol) {
        self.client = client
    }

    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws
        -> (HTTPResponse, HTTPBody?) {
        let buffer: ByteBuffer? = if let body { ByteBuffer(bytes: try await [UInt8](collecting: body, upTo: 1 << 20)) } else { nil }
        return try await client.execute(uri: request.path ?? "/", method: request.method, headers: request.headerFields,
                                        body: buffer) { response in
            (HTTPResponse(status: response.status, headerFields: response.headers), HTTPBody(Array(response.body.readableBytesView)))
        }
    }
}

/// Adds fixed headers to every request (the app context of `/v1`, a session).
public struct FixedHeadersMiddleware: ClientMiddleware {
    let headers: HTTPFields

    public init(_ headers: HTTPFields) {
        self.headers = headers
    }

    public func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                          next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws
        -> (HTTPResponse, HTTPBody?) {
        var request = request
        for field in headers where request.headerFields[field.name] == nil { request.headerFields.append(field) }
        return try await next(request, body, baseURL)
    }
}

extension TestClientProtocol {
    /// The generated client of the contract over this test client, sending `headers` with every call.
    public func api(headers: HTTPFields = [:]) -> LatchkeyAPI.Client {
        LatchkeyAPI.Client(serverURL: URL(string: "http://localhost")!, configuration: .init(dateTranscoder: .iso8601),
                           transport: TestClientTransport(self), middlewares: [FixedHeadersMiddleware(headers)])
    }
}
