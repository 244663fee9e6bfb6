import AssetPackFormat
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The moment publishing tests publish at, so that their catalogs are reproducible.
let publishedAt = Date(timeIntervalSince1970: 1_750_000_000)

extension TestRepository {
    /// Options that publish to this repository at `publishedAt`.
    func options(_ configure: (inout PublishOptions) -> Void = { _ in }) -> PublishOptions {
        publishOptions(now: publishedAt, configure)
    }
}

/// A fresh repository for a publishing test (it publishes with `testKey` or another key of its own).
func workspace() throws -> TestRepository { try TestRepository("publishing") }

let testKey = try! SigningKey.generate()
let otherKey = try! SigningKey.generate()
