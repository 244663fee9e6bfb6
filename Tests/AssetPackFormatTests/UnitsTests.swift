import AssetPackFormat
import Testing

/// The one grammar of sizes and durations, and the one byte formatter.
@Suite struct UnitsTests {
    @Test(arguments: [
        ("5M", 5_000_000), ("5MB", 5_000_000), ("5mb", 5_000_000), ("5m", 5_000_000), ("5 MB", 5_000_000),
        ("1k", 1000), ("1K", 1000), ("10kB", 10_000), ("2G", 2_000_000_000), ("2GB", 2_000_000_000), ("1T", 1_000_000_000_000),
        ("3KiB", 3072), ("5MiB", 5_242_880), ("2GiB", 2_147_483_648), ("1TiB", 1_099_511_627_776),
        ("1048576", 1_048_576), ("7B", 7), ("0", 0), ("1.5 GB", 1_500_000_000), ("1.5k", 1500), ("0.5KiB", 512), ("1.0005k", 1001),
        ("18446744073709551615", UInt64.max),
    ] as [(String, UInt64)])
    func sizes(_ text: String, _ bytes: UInt64) { #expect(ByteCount.parse(text) == bytes, "\(text)") }

    @Test(arguments: ["", "MB", "5 parsecs", "1.2.3GB", "-5MB", "5XB", ".5M", "5.M", "18446744073709551616", "20000000T", "5 M B", "0x10"])
    func badSizes(_ text: String) { #expect(ByteCount.parse(text) == nil, "\(text)") }

    @Test func format() {
        #expect(ByteCount.format(0) == "0 B")
        #expect(ByteCount.format(999) == "999 B")
        #expect(ByteCount.format(1000) == "1.0 kB")
        #expect(ByteCount.format(1536) == "1.5 kB")
        #expect(ByteCount.format(11 << 20) == "11.5 MB")
        #expect(ByteCount.format(999_999) == "1.0 MB")
        #expect(ByteCount.format(200_000_000_000) == "200.0 GB")
        #expect(ByteCount.format(UInt64.max) == "18.4 EB")
        #expect(ByteCount.formatExactly(2_000_000) == "2.0 MB (2000000 bytes)")
        #expect(ByteCount.formatExactly(32) == "32 bytes")
    }

    @Test func durations() {
        #expect(DurationText.parse("90s", bareNumber: .refused) == .seconds(90))
        #expect(DurationText.parse("15m", bareNumber: .refused) == .seconds(900))
        #expect(DurationText.parse("12h", bareNumber: .refused) == .seconds(43_200))
        #expect(DurationText.parse("30d", bareNumber: .refused) == .seconds(2_592_000))
        #expect(DurationText.parse("250ms", bareNumber: .refused) == .milliseconds(250))
        #expect(DurationText.parse("1.5h", bareNumber: .refused) == .seconds(5400))
        #expect(DurationText.parse("0.3", bareNumber: .seconds) == .milliseconds(300))
        #expect(DurationText.parse("200", bareNumber: .milliseconds) == .milliseconds(200))
        #expect(DurationText.parse("30", bareNumber: .refused) == nil)
        for bad in ["", "d", "-1d", "1w", "1.5.1h", ".5s", "5.s", "s5", "36501000d", "1 h"] {
            #expect(DurationText.parse(bad, bareNumber: .seconds) == nil, "\(bad)")
        }
    }
}
