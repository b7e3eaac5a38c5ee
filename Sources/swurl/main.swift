import SwurlCLI
import SwurlCore

// Everything lives in the layers; main only runs the CLI and exits with its status (a run that
// Ctrl-C stopped ends by SIGINT, which a shell reports as the same 130).
let status = Swurl.main(arguments: ArgumentBytes.processArguments(), environment: Environment.process())
if status == ExitStatus.interrupted.rawValue { Interrupt.endByInterrupt() }
exitProcess(status)
