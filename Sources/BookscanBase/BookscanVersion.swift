/// The bookscan release this build is: reported by the service, the CLI and every analytics record.
public enum BookscanVersion {
    /// The semantic version of this build.
    public static let current = "0.1.0"
}
