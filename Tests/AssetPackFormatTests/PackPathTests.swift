import AssetPackFormat
import Testing

/// The rules for a path read from a pack index, each with the reason it gives; a control
/// character anywhere is the reason given before a bad component.
@Suite struct PackPathTests {
    @Test(arguments: [
        ("", "is empty"),
        ("/a", "is absolute"),
        ("a/b\u{1}", "contains a control character"),
        ("./a\u{7F}", "contains a control character"),
        ("a//b\nc", "contains a control character"),
        ("a//b", "has an empty component"),
        ("a/b/", "has an empty component"),
        ("./a", "contains a '.' component"),
        ("a/.", "contains a '.' component"),
        ("a/../b", "contains a '..' component"),
        ("..", "contains a '..' component"),
        ("a/./b/../c", "contains a '.' component"),
    ])
    func aBadPathGivesItsReason(path: String, reason: String) {
        #expect(PackPath.problemWithStoredPath(path) == reason)
    }

    @Test(arguments: ["a", ".a", "a.", "...", "a..b/.c/d..", "ünï/😀.txt"])
    func aGoodPathHasNoProblem(path: String) {
        #expect(PackPath.problemWithStoredPath(path) == nil)
    }

    /// The length limit at its edge (outside the arguments above, which the test log prints).
    @Test func aPathMayHoldUpToTheLimit() {
        #expect(PackPath.problemWithStoredPath(String(repeating: "a", count: PackPath.maximumLength)) == nil)
        #expect(PackPath.problemWithStoredPath(String(repeating: "a", count: PackPath.maximumLength + 1)) == "is longer than 4096 bytes")
    }
}
