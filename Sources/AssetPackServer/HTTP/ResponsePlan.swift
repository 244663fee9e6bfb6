/// The response to one request, decided before anything is sent.
struct ResponsePlan {
    enum Body {
        case empty
        /// A short text body (error pages).
        case text(String)
        /// A byte range of a file, sent with sendfile when possible.
        case file(OpenedFile, offset: UInt64, length: UInt64)
        /// An assembled or faulty body, read through a callback.
        case stream(ResponseBody)
    }

    var status: Int
    var headers: [(String, String)] = []
    var body: Body = .empty
    /// Extra words for the access log line (the refusal reason, the faults).
    var logNote: String?

    /// Body bytes a GET sends (HEAD sends none but announces the same length).
    var bodyLength: UInt64 {
        switch body {
        case .empty: return 0
        case .text(let s): return UInt64(s.utf8.count)
        case .file(_, _, let length): return length
        case .stream(let b): return b.length
        }
    }

    /// A plain-text error or notice response, e.g. 404 with "Not Found".
    static func status(_ code: Int, note: String? = nil, headers: [(String, String)] = []) -> ResponsePlan {
        ResponsePlan(status: code, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers,
                     body: .text("\(code) \(reasonPhrase(code))\n"), logNote: note)
    }

    static func reasonPhrase(_ code: Int) -> String {
        switch code {
        case 200: return "OK"
        case 206: return "Partial Content"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 412: return "Precondition Failed"
        case 416: return "Range Not Satisfiable"
        case 503: return "Service Unavailable"
        default: return "Status \(code)"
        }
    }
}
