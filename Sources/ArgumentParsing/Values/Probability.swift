/// A probability from 0 to 1.
public struct Probability: ArgumentValue, Equatable, Sendable {
    public var value: Double
    public init?(argument: String) {
        guard let p = Double(argument), p >= 0, p <= 1 else { return nil }
        value = p
    }
    public static var expectation: String { "a probability from 0 to 1" }
}
