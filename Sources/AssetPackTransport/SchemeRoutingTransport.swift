/// Sends `file://` requests to a `FileTransport` and every other request to `network` (libcurl,
/// or whatever the app configured), so that a repository folder and HTTP mirrors can be listed
/// side by side. Which scheme a redirect may lead to is the caller's decision (the client never
/// follows one from the network to a file).
public struct SchemeRoutingTransport: HTTPTransport {
    public let network: any HTTPTransport
    public let files: FileTransport

    public init(network: any HTTPTransport, files: FileTransport = FileTransport()) {
        self.network = network
        self.files = files
    }

    public func send(_ request: HTTPRequest, to destination: HTTPBodyDestination,
                     cancellation: CancellationFlag?) throws(TransportError) -> HTTPResponse {
        if request.url.lowercased().hasPrefix("file:") {
            return try files.send(request, to: destination, cancellation: cancellation)
        }
        return try network.send(request, to: destination, cancellation: cancellation)
    }
}
