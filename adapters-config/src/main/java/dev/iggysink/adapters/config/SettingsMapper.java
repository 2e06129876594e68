package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.RetrySettings;
import dev.iggysink.application.settings.RotationSettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.settings.TransformSettings;
import java.util.List;
import org.mapstruct.Mapper;
import org.mapstruct.Mapping;
import org.mapstruct.ReportingPolicy;
import org.mapstruct.factory.Mappers;

/**
 * Reshapes the validated file DTOs into the settings records. Only one-to-one copying lives here (all logic is in
 * {@link ConnectorReader}); {@code unmappedTargetPolicy = ERROR} makes a settings field added without a source
 * break the build instead of silently taking a default.
 */
@Mapper(unmappedTargetPolicy = ReportingPolicy.ERROR)
interface SettingsMapper {
    SettingsMapper INSTANCE = Mappers.getMapper(SettingsMapper.class);

    @Mapping(target = "transforms", source = "transforms")
    @Mapping(target = "output", source = "file.plugin")
    @Mapping(target = "rotation", source = "file.plugin")
    @Mapping(target = "retry", source = "file.plugin")
    @Mapping(target = "delivery", source = "file.plugin")
    SinkSettings toSettings(ConnectorFileDto file, List<TransformSettings> transforms);

    StreamSettings toStream(StreamDto stream);

    @Mapping(target = "format", source = "outputFormat")
    OutputSettings toOutput(PluginConfigDto plugin);

    @Mapping(target = "mode", source = "fileRotation")
    RotationSettings toRotation(PluginConfigDto plugin);

    RetrySettings toRetry(PluginConfigDto plugin);

    DeliverySettings toDelivery(PluginConfigDto plugin);
}
