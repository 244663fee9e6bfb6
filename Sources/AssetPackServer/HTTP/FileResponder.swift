import AssetPackFormat
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The request fields the responder reads.
struct FileRequest {
    var method: String
    /// The target as libmicrohttpd gives it: a C string, so cut at any NUL.
    var target: String
    /// The target as received, to refuse control bytes before anything else looks at it.
    var targetBytes: RequestTargetBytes
    /// The target's query (`?platform=iOS`), which libmicrohttpd cuts off `target`.
    var query = QueryParameters(target: [])
    var version: String
    /// Looks up a request header by name (case-insensitive).
    var header: (String) -> String?
}

/// Decides the response to a GET or HEAD of a repository file: control bytes in the target
/// (400, before anything else), path checks, Apple's self-hosted convention (`/manifest`,
/// `/manifest?platform=iOS`, `/assets/<pack ID>`, optionally under `/channels/NAME/`, answered
/// from the channel's `apple/` folder: `AppleHostingLayout`), conditional
/// requests (If-Match, If-None-Match, If-Modified-Since, If-Range), ranges, cache headers and
/// injected faults.
struct FileResponder: Sendable {
    let root: RepositoryRoot
    let policy: ContentPolicy
    let faults: FaultInjector?

    func respond(to request: FileRequest) -> ResponsePlan {
        if let refusal = request.targetBytes.refusal { return .status(refusal.status, note: refusal.reason) }
        let isHead = request.method == "HEAD"
        guard isHead || request.method == "GET" else {
            return .status(405, note: "method \(request.method)", headers: [("Allow", "GET, HEAD")])
        }
        if request.version == "HTTP/1.1" && request.header("Host") == nil {
            return .status(400, note: "no Host header")  // RFC 9112 §3.2: MUST answer 400
        }
        let file: OpenedFile
        let opened = root.segments(of: request.target).flatMap { segments in
            root.openFile(relative: AppleHostingLayout.file(for: segments, platform: request.query.value("platform"))
                ?? segments.joined(separator: "/"))
        }
        switch opened {
        case .success(let f): file = f
        case .failure(let refusal): return .status(refusal.status, note: refusal.reason)
        }
        let faulty = faults.flatMap { $0.configuration.includeCatalog || policy.isPackContent(file.relativePath) ? $0 : nil }
        if let faulty {
            if faulty.shouldFail() { return .status(503, note: "fault=fail", headers: [("Retry-After", "1"), ("Cache-Control", "no-store")]) }
            let ms = faulty.configuration.latencyMilliseconds
            if ms > 0 { usleep(useconds_t(min(ms, 3_600_000) * 1000)) }
        }
        var headers: [(String, String)] = [
            ("ETag", file.entityTag.quoted),
            ("Last-Modified", HTTPDate.string(file.modified)),
            ("Cache-Control", policy.cacheControl(file.relativePath)),
            ("Accept-Ranges", "bytes"),
        ]
        if let ifMatch = request.header("If-Match"), !file.entityTag.matchesMatch(ifMatch) {
            return .status(412, note: "If-Match")
        }
        if let ifNoneMatch = request.header("If-None-Match") {
            if file.entityTag.matchesNoneMatch(ifNoneMatch) { return ResponsePlan(status: 304, headers: headers) }
        } else if let since = request.header("If-Modified-Since").flatMap(HTTPDate.parse), file.modified <= since {
            return ResponsePlan(status: 304, headers: headers)
        }
        let contentType = policy.contentType(file.relativePath)
        var rangeHeader = isHead ? nil : request.header("Range")
        if rangeHeader != nil, let ifRange = request.header("If-Range"), !rangeCondition(ifRange, holdsFor: file) {
            rangeHeader = nil
        }
        let size = file.size
        switch ByteRangeRequest(header: rangeHeader, length: size) {
        case .whole:
            headers.append(("Content-Type", contentType))
            return body(status: 200, headers: headers, file: file, pieces: [.file(offset: 0, length: size)], faulty: faulty, isHead: isHead)
        case .unsatisfiable:
            return .status(416, headers: [("Content-Range", "bytes */\(size)")])
        case .ranges(let ranges) where ranges.count == 1:
            let r = ranges[0]
            headers += [("Content-Type", contentType), ("Content-Range", "bytes \(r.lowerBound)-\(r.upperBound)/\(size)")]
            return body(status: 206, headers: headers, file: file, pieces: [.file(offset: r.lowerBound, length: r.count64)], faulty: faulty, isHead: isHead)
        case .ranges(let ranges):
            let boundary = "assetpack-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            var pieces: [ResponseBody.Piece] = []
            for (i, r) in ranges.enumerated() {
                let partHeader = "\(i == 0 ? "" : "\r\n")--\(boundary)\r\nContent-Type: \(contentType)\r\nContent-Range: bytes \(r.lowerBound)-\(r.upperBound)/\(size)\r\n\r\n"
                pieces += [.bytes(Array(partHeader.utf8)), .file(offset: r.lowerBound, length: r.count64)]
            }
            pieces.append(.bytes(Array("\r\n--\(boundary)--\r\n".utf8)))
            headers.append(("Content-Type", "multipart/byteranges; boundary=\(boundary)"))
            return body(status: 206, headers: headers, file: file, pieces: pieces, faulty: faulty, isHead: isHead, forceStream: true)
        }
    }

    /// The response with `pieces` as its body: sendfile for one plain file range, a stream
    /// otherwise or when faults apply.
    private func body(status: Int, headers: [(String, String)], file: OpenedFile, pieces: [ResponseBody.Piece],
                      faulty: FaultInjector?, isHead: Bool, forceStream: Bool = false) -> ResponsePlan {
        let length = pieces.reduce(0) { $0 + $1.length }
        let fault = isHead ? BodyFault() : faulty?.bodyFault(length: length) ?? BodyFault()
        if !forceStream, fault.isNone, case .file(let offset, let n) = pieces[0] {
            return ResponsePlan(status: status, headers: headers, body: .file(file, offset: offset, length: n))
        }
        return ResponsePlan(status: status, headers: headers, body: .stream(ResponseBody(pieces: pieces, file: file, fault: fault)), logNote: fault.logNote)
    }

    /// Whether an If-Range validator still describes the file (RFC 9110 §13.1.5): an entity tag
    /// must match strongly, a date must equal Last-Modified exactly.
    private func rangeCondition(_ value: String, holdsFor file: OpenedFile) -> Bool {
        let v = value.trimmingSpaces
        if v.hasPrefix("\"") || v.hasPrefix("W/") { return v == file.entityTag.quoted }
        return HTTPDate.parse(v) == file.modified
    }
}

extension ClosedRange where Bound == UInt64 {
    /// The number of bytes in the range.
    var count64: UInt64 { upperBound - lowerBound + 1 }
}
