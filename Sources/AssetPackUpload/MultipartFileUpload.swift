import Foundation

/// One file on its way up as a multipart upload: its upload ID, its parts, and the ETags
/// collected so far (parts finish in any order, on any worker).
final class MultipartFileUpload: @unchecked Sendable {
    let item: UploadPlan.Item
    let uploadID: String
    /// Byte ranges, part n at index n−1.
    let parts: [Range<UInt64>]
    private let lock = NSLock()
    private var eTags: [String?]
    private var missing: Int

    init(item: UploadPlan.Item, uploadID: String, parts: [Range<UInt64>]) {
        self.item = item
        self.uploadID = uploadID
        self.parts = parts
        eTags = Array(repeating: nil, count: parts.count)
        missing = parts.count
    }

    /// Records part `index`'s ETag; returns every ETag, in part order, once this was the last
    /// part missing (exactly one caller gets them), else nil.
    func record(_ eTag: String, forPartAt index: Int) -> [String]? {
        lock.withLock {
            if eTags[index] == nil { missing -= 1 }
            eTags[index] = eTag
            return missing == 0 ? eTags.compactMap { $0 } : nil
        }
    }
}
