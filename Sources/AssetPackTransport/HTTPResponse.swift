/// The outcome of one request: status, headers and, depending on the destination, the body.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// The headers of the final response (those of an interim `100 Continue` are dropped).
    public var headers: HTTPHeaders
    /// The body when the destination was `.memory`; for a status outside 200–299 always the
    /// first 64 KiB of the body (for the error message), whatever the destination.
    public var body: [UInt8]
    /// Body bytes received, wherever they went.
    public var bodyByteCount: UInt64
    /// The URL that answered (CURLINFO_EFFECTIVE_URL).
    public var url: String
    /// For a 3xx with a Location header: the absolute URL it points to. Not followed.
    public var redirectURL: String?
    /// "1.0", "1.1", "2" or "3".
    public var httpVersion: String
    /// Connections opened for this request: 0 when a kept-alive connection was reused.
    public var newConnectionCount: Int

    /// For `HTTPTransport` implementations outside this module.
    public init(status: Int, headers: HTTPHeaders, body: [UInt8], bodyByteCount: UInt64, url: String, redirectURL: String? = nil,
                httpVersion: String = "1.1", newConnectionCount: Int = 0) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyByteCount = bodyByteCount
        self.url = url
        self.redirectURL = redirectURL
        self.httpVersion = httpVersion
        self.newConnectionCount = newConnectionCount
    }

    public var isSuccess: Bool { (200..<300).contains(status) }
    public var isRedirect: Bool { (300..<400).contains(status) && redirectURL != nil }

    /// Self when the status is 2xx; otherwise `TransportError.httpStatus` with the URL and body.
    @discardableResult
    public func requireSuccess() throws(TransportError) -> HTTPResponse {
        guard isSuccess else { throw .httpStatus(url: url, status: status, body: body) }
        return self
    }
}
