import Foundation

// The libFuzzer entry point, built only by scripts/fuzz.sh (swiftc -sanitize=fuzzer,address),
// never by SwiftPM. One binary holds every target; ASSETPACK_FUZZ_TARGET picks one, and each
// input goes through FuzzTarget.run, the same code FuzzRegressionReplayTests replays.

nonisolated(unsafe) private var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    let name = ProcessInfo.processInfo.environment["ASSETPACK_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("ASSETPACK_FUZZ_TARGET must be one of: \(names) (got \"\(name)\")\n".utf8))
        exit(2)
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    selected?.run(bytes)
    return 0
}
