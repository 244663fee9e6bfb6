import Foundation

/// How many file descriptors of this process are open on `path` (read from /proc/self/fd): a
/// way to see that code under test has reached the point where it holds a file open.
public func openDescriptors(of path: String) -> Int {
    let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == target }.count
}
