extension String {
    /// The string right-aligned in `width` columns (never cut).
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
