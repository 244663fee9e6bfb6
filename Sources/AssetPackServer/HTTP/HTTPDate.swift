import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP dates (RFC 9110 §5.6.7): formatting in IMF-fixdate, parsing the three historic forms.
enum HTTPDate {
    /// "Sun, 06 Nov 1994 08:49:37 GMT"
    static func string(_ seconds: time_t) -> String {
        format(seconds, "%a, %d %b %Y %H:%M:%S GMT")
    }

    /// "[10/Oct/2000:13:55:36 +0000]" without brackets, as common log format writes it.
    static func logString(_ seconds: time_t) -> String {
        format(seconds, "%d/%b/%Y:%H:%M:%S +0000")
    }

    /// Seconds since 1970 for an IMF-fixdate, RFC 850 or asctime date; nil if it is none of them.
    static func parse(_ text: String) -> time_t? {
        for pattern in ["%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"] {
            var parts = tm()
            if cmhd_parse_time(text, pattern, &parts) == 1 { return timegm(&parts) }
        }
        return nil
    }

    private static func format(_ seconds: time_t, _ pattern: String) -> String {
        var t = seconds
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        // strftime's %a/%b follow LC_TIME, which stays "C" because nothing here calls setlocale.
        let n = strftime(&buffer, buffer.count, pattern, &parts)
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
