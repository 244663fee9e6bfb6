import AssetPackFormat
import Foundation
import Testing

/// Catalog timestamps are read only in RFC 3339's exact shape.
@Suite struct RFC3339Tests {
    @Test(arguments: [
        ("2025-06-01T12:00:00Z", 1_748_779_200.0),
        ("2025-06-01T12:00:00.250Z", 1_748_779_200.25),
        ("2025-06-01T14:00:00+02:00", 1_748_779_200.0),
        ("2025-06-01T07:30:00-04:30", 1_748_779_200.0),
    ])
    func readsTheShapesRFC3339Allows(text: String, seconds: Double) throws {
        let date = try #require(RFC3339.date(text), "\(text)")
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.001, "\(text)")
    }

    /// The first was accepted by Foundation's parser alone (found by the catalog fuzzer).
    @Test(arguments: ["0-2-8T1:5:6Z", "2025-6-01T12:00:00Z", "2025-06-01 12:00:00Z", "2025-06-01T12:00:00",
                      "2025-06-01T12:00:00.Z", "2025-06-01T12:00:00+0200", "2025-06-01T12:00:00Zjunk", "", "２０２５-06-01T12:00:00Z"])
    func refusesEverythingElse(text: String) {
        #expect(RFC3339.date(text) == nil, "\(text)")
    }

    @Test func writesWhatItReads() throws {
        let date = Date(timeIntervalSince1970: 1_748_779_200)
        #expect(RFC3339.string(date) == "2025-06-01T12:00:00Z")
        #expect(try #require(RFC3339.date(RFC3339.string(date))) == date)
    }
}
