/// Placeholder replaced below.
public enum AuditHTMLRenderer {
    public static func render(_ r: AuditReport, root: String) -> String { "" }
}
