import AssetPackFormat
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The repository report's figures, and Apple's 80 % warning on the page.
@Suite struct RepositoryReportTests {
    @Test func figuresComeFromTheCatalogsAndTheUpdatePlanner() throws {
        let repo = try workspace()
        try repo.put("Voices.en", language: "en", files: ["v.txt": Array(repeating: UInt8(ascii: "e"), count: 100_000)])
        try repo.put("Voices.de", language: "de", files: ["v.txt": Array(repeating: UInt8(ascii: "d"), count: 100_000)])
        try repo.put("World", files: ["w.bin": patternBytes(300_000, seed: 1)])
        try repo.publish(now: publishedAt)
        var files = patternBytes(300_000, seed: 1)
        files[150_000] ^= 0xFF
        try repo.put("World", files: ["w.bin": files])
        _ = try repo.publishReport(now: publishedAt) { $0.rolloutPercent = 30 }
        let report = try RepositoryReport.make(repository: repo.path, keys: [repo.publicKey], now: publishedAt)
        #expect(report.signaturesChecked && report.channels.map(\.name) == ["default"])
        let channel = report.channels[0]
        #expect(channel.catalogVersion == 2 && channel.catalogFormat == 2 && channel.history == [1, 2])
        #expect(channel.rollout?.percent == 30 && channel.rollout?.previousPacks.contains("World v1") == true)
        let voices = try #require(channel.packs.first { $0.id == "Voices.en" })
        #expect(voices.installSize == 100_000 && voices.compressionRatio > 50, "\(voices)")
        #expect(channel.languages.map(\.language) == ["", "de", "en"])
        let world = try #require(channel.packs.first { $0.id == "World" })
        #expect(world.updates.map { "v\($0.fromVersion)→v\($0.toVersion)" } == ["v1→v2"])
        #expect(world.updates[0].downloadBytes < world.downloadSize / 4, "an edit of one byte is a patch")
        #expect(report.apple.packs == 3 && !report.apple.warning)
        #expect(report.apple.hostedBytes == channel.packs.map(\.downloadSize).reduce(0, +) + (try repo.catalog()).rollout!.packs.first { $0.id == "World" }!.size)
    }

    @Test func thePageWarnsFromEightyPercentOfAppleLimits() {
        func page(packs: Int) -> String {
            RepositoryReportHTML.render(RepositoryReport(
                repository: "site <&>", generated: "2026-12-01T00:00:00Z", signaturesChecked: false, channels: [],
                apple: .init(packs: packs, packLimit: 100, hostedBytes: 1000, hostedLimit: RepositoryReport.appleHostedLimit,
                             usedFraction: Double(packs) / 100, warning: Double(packs) / 100 >= RepositoryReport.appleWarningShare),
                warnings: []))
        }
        #expect(page(packs: 80).contains("80.0 % of a limit is used: Apple mails a warning from 80 %"))
        #expect(page(packs: 79).contains("79.0 % of the nearest limit is used (Apple warns from 80 %)"))
        #expect(page(packs: 80).contains("fill=\"#ef6c00\""), "the gauge turns orange")
        #expect(page(packs: 101).contains("fill=\"#c62828\""), "and red over the limit")
        #expect(page(packs: 1).contains("site &lt;&amp;&gt;") && !page(packs: 1).contains("site <&>"))
        #expect(page(packs: 1).contains("signatures not checked"))
    }
}
