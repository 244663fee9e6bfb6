/// Why a pack could not be written.
public enum PackWriteError: Error, CustomStringConvertible {
    case read(String, String)
    case changed(String, String)
    case write(String, String)
    case tooLarge(String)
    /// A file's pack path breaks the rules for pack paths (docs/FORMAT.md): which file, why.
    case badPath(String)
    /// A setting out of its range (`SettingBounds`): which, the range, the value.
    case invalidSetting(String)

    public var description: String {
        switch self {
        case let .read(path, why): return "cannot read \(path): \(why)"
        case let .changed(path, why): return "\(path) \(why); packs are built from files that do not change meanwhile"
        case let .write(path, why): return "cannot write \(path): \(why)"
        case let .tooLarge(why), let .badPath(why), let .invalidSetting(why): return why
        }
    }
}
