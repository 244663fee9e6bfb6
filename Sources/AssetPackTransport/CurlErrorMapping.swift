import CCurl

extension TransportError {
    /// Classifies a libcurl result code; `detail` is the text of CURLOPT_ERRORBUFFER.
    init(curlCode code: CURLcode, url: String, detail: String) {
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_BAD_FUNCTION_ARGUMENT:
            self = .invalidRequest("\(url): \(message)")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self = .nameResolution(url: url, message: message)
        case CURLE_COULDNT_CONNECT:
            self = .connection(url: url, message: message)
        case CURLE_OPERATION_TIMEDOUT:
            self = .timedOut(url: url, message: message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_USE_SSL_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CLIENTCERT:
            self = .tls(url: url, message: message)
        case CURLE_ABORTED_BY_CALLBACK:
            self = .cancelled(url: url)
        default:
            self = .transfer(url: url, code: Int(code.rawValue), message: message)
        }
    }
}
