import Foundation

/// The ranges that numeric settings are held to, the same for the command line (each option
/// declares its range with `range:`) and for a library caller (the library checks the value it
/// is given and throws the same sentence): a value out of range is an error that names the
/// setting and the range, never a run that exhausts the machine (`--threads 100000` once made
/// 2.1 GB of thread stacks for a 6-byte input).
public enum SettingBounds {
    /// Processor cores this process may use.
    public static var cores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Worker threads (packaging, publishing, verification): 1 to 4 × the cores.
    public static var threads: ClosedRange<Int> { 1...(4 * cores) }
    /// Why `threads` stops where it does.
    public static var threadsReason: String { "4 × the \(cores) cores" }

    /// zstd compression levels.
    public static let compressionLevel: ClosedRange<Int32> = 1...19
    /// Parts a download is assembled in side by side (each a connection of its own).
    public static let downloadParts: ClosedRange<Int> = 1...16
    /// Versions of each pack whose files a publish keeps, the current one included.
    public static let keptVersions: ClosedRange<Int> = 1...1000
    /// Transfers an upload runs at once.
    public static let uploadJobs: ClosedRange<Int> = 1...64

    /// Nil when `value` lies in `range`; otherwise the sentence that says so, naming `setting`
    /// ("--threads must be from 1 to 8 (4 × the 2 cores), got 100000").
    public static func problem<T: Comparable>(_ setting: String, _ value: T, in range: ClosedRange<T>, reason: String? = nil,
                                              describe: (T) -> String = { "\($0)" }) -> String? {
        guard !range.contains(value) else { return nil }
        return "\(setting) must be from \(describe(range.lowerBound)) to \(describe(range.upperBound))\(reason.map { " (\($0))" } ?? ""), got \(describe(value))"
    }
}
