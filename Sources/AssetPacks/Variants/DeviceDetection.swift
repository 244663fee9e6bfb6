import AssetPackFormat
import Foundation

/// The device's capabilities for choosing variants (`DeviceCapabilities`): the configuration's
/// texture formats, memory and architecture, the last two read from the system when not given.
enum DeviceDetection {
    static func capabilities(_ configuration: AssetPackManager.Configuration) -> DeviceCapabilities {
        DeviceCapabilities(textureFormats: configuration.textureFormats, memory: configuration.memory ?? systemMemory,
                           architecture: configuration.architecture ?? machineArchitecture)
    }

    /// The physical memory as the system reports it (`sysinfo`, MemTotal on Linux).
    static var systemMemory: UInt64 { ProcessInfo.processInfo.physicalMemory }

    /// `uname -m` (`x86_64`, `aarch64`, …), normalized by `DeviceCapabilities`.
    static var machineArchitecture: String {
        var names = utsname()
        guard uname(&names) == 0 else { return "unknown" }
        let machine = withUnsafeBytes(of: &names.machine) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return DeviceCapabilities.normalizedArchitecture(machine)
    }
}
