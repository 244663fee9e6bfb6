/// Which accepted request downloads first when more are waiting than `--max-parallel` allows:
/// essential packs of an install step, then on-demand packs a caller waits for, then prefetch
/// packs and detached requests, then automatic updates; in the order accepted within a class.
enum RequestPriority: Int, Comparable, Sendable {
    case essential = 0
    case waitedFor = 1
    case background = 2
    case update = 3

    static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
