package dev.tandem.extender.certs;

import dev.tandem.kit.config.Parser;
import dev.tandem.kit.config.Parsers;
import dev.tandem.kit.config.Setting;
import dev.tandem.kit.config.Settings;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** The settings of {@code scheduler-extender.jar certificates}, each declared once. */
public final class CertificateSettings {

  private static final Parser<List<String>> NAMES =
      text ->
          text.isBlank()
              ? List.of()
              : Arrays.stream(text.split(","))
                  .map(String::strip)
                  .filter(s -> !s.isEmpty())
                  .toList();

  public static final Setting<Path> OUT =
      Setting.of("--out", "DIR", Parsers.path())
          .env("TANDEM_CERTIFICATES_OUT")
          .defaultText("none: the Secrets")
          .help(
              "write `DIR/extender/` and `DIR/kube-scheduler/` (`tls.crt`, `tls.key`, `ca.crt`)"
                  + " instead of creating the Secrets");
  public static final Setting<String> NAMESPACE =
      Setting.of("--namespace", "NS", Parsers.text())
          .env("POD_NAMESPACE")
          .defaultValue("tandem-system")
          .help("namespace of the extender's Service and of the Secrets");
  public static final Setting<String> SERVICE =
      Setting.of("--service", "NAME", Parsers.text())
          .env("TANDEM_CERTIFICATES_SERVICE")
          .defaultValue("tandem-scheduler-extender")
          .help(
              "the extender's Service: the serving certificate covers `NAME`, `NAME.NS`,"
                  + " `NAME.NS.svc` and `NAME.NS.svc.cluster.local`");
  public static final Setting<List<String>> EXTRA_NAMES =
      Setting.of("--extra-names", "LIST", NAMES)
          .env("TANDEM_CERTIFICATES_EXTRA_NAMES")
          .defaultText("none")
          .help(
              "more names of the serving certificate, comma-separated (`ip:10.96.0.88` for an address)");
  public static final Setting<Integer> DAYS =
      Setting.of("--days", "N", Parsers.intRange(1, 36_500))
          .env("TANDEM_CERTIFICATES_DAYS")
          .defaultValue("3650")
          .help("validity of the CA and both certificates");
  public static final Setting<String> EXTENDER_SECRET =
      Setting.of("--extender-secret", "NAME", Parsers.text())
          .env("TANDEM_CERTIFICATES_EXTENDER_SECRET")
          .defaultValue("tandem-scheduler-extender-tls")
          .help("Secret of the extender's serving certificate (mounted by the extender)");
  public static final Setting<String> SCHEDULER_SECRET =
      Setting.of("--scheduler-secret", "NAME", Parsers.text())
          .env("TANDEM_CERTIFICATES_SCHEDULER_SECRET")
          .defaultValue("tandem-scheduler-client-tls")
          .help("Secret of kube-scheduler's client certificate (mounted by the second scheduler)");

  public static final Settings SETTINGS =
      Settings.of(
          """
          usage: java -jar scheduler-extender.jar certificates [options]

          Issues a CA, the extender's serving certificate and kube-scheduler's client certificate,
          into two Secrets (or files with --out); does nothing when they exist.
          """,
          List.of(OUT, NAMESPACE, SERVICE, EXTRA_NAMES, DAYS, EXTENDER_SECRET, SCHEDULER_SECRET));

  private CertificateSettings() {}
}
