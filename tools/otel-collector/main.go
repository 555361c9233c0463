// A minimal OpenTelemetry Collector for the tests: the OTLP receiver, the
// memory limiter and batch processors and the file exporter, the components
// of compose's collector (deploy/otel/collector.yaml), which the tests validate
// with it. Run: clinic-otelcol --config <file.yaml>
package main

import (
	"log"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/processor/memorylimiterprocessor"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func factories() (otelcol.Factories, error) {
	receivers, err := otelcol.MakeFactoryMap(otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	processors, err := otelcol.MakeFactoryMap(memorylimiterprocessor.NewFactory(), batchprocessor.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	exporters, err := otelcol.MakeFactoryMap(fileexporter.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	return otelcol.Factories{
		Receivers:  receivers,
		Processors: processors,
		Exporters:  exporters,
		Telemetry:  otelconftelemetry.NewFactory(),
	}, nil
}

func main() {
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "clinic-otelcol", Description: "OTLP receiver to file, for tests and compose's configuration", Version: "test"},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{DefaultScheme: "file", ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()}},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		log.Fatal(err)
	}
}
